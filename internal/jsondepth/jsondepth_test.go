package jsondepth

import (
	"strings"
	"testing"
)

func TestTooDeep(t *testing.T) {
	nest := func(open string, n int) string {
		closing := map[string]string{"[": "]", `{"a":`: "}"}[open]
		return strings.Repeat(open, n) + "1" + strings.Repeat(closing, n)
	}
	for _, tc := range []struct {
		name string
		body string
		want bool
	}{
		{"flat", `{"a":[1,2,{"b":3}]}`, false},
		{"arrays at the limit", nest("[", Max), false},
		{"arrays over the limit", nest("[", Max+1), true},
		{"objects over the limit", nest(`{"a":`, Max+1), true},
		{"brackets in strings do not count", `["` + strings.Repeat("[", 2*Max) + `"]`, false},
		{"an escaped quote does not end a string", `["\"` + strings.Repeat("{", 2*Max) + `"]`, false},
		{"an escaped backslash does", `["\\",` + nest("[", Max) + `]`, true},
		{"not JSON", "<html>", false},
		{"many openings, shallow", "[" + strings.Repeat(`{"a":[1]},`, 3*Max) + "1]", false},
		{"many backslashes before a quote", `["` + strings.Repeat(`\\`, 3) + `",` + nest("[", Max) + `]`, true},
		{"an odd run of backslashes escapes", `["` + strings.Repeat(`\\`, 3) + `\"` + strings.Repeat("[", 2*Max) + `"]`, false},
		{"unterminated string", `["` + strings.Repeat("[", 2*Max), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := TooDeep([]byte(tc.body), Max); got != tc.want {
				t.Errorf("TooDeep = %v, want %v", got, tc.want)
			}
		})
	}
}
