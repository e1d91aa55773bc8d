package adapters

import (
	"strings"
	"testing"
)

func TestJSONTooDeep(t *testing.T) {
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
		{"arrays at the limit", nest("[", MaxJSONDepth), false},
		{"arrays over the limit", nest("[", MaxJSONDepth+1), true},
		{"objects over the limit", nest(`{"a":`, MaxJSONDepth+1), true},
		{"brackets in strings do not count", `["` + strings.Repeat("[", 2*MaxJSONDepth) + `"]`, false},
		{"an escaped quote does not end a string", `["\"` + strings.Repeat("{", 2*MaxJSONDepth) + `"]`, false},
		{"an escaped backslash does", `["\\",` + nest("[", MaxJSONDepth) + `]`, true},
		{"not JSON", "<html>", false},
		{"many openings, shallow", "[" + strings.Repeat(`{"a":[1]},`, 3*MaxJSONDepth) + "1]", false},
		{"many backslashes before a quote", `["` + strings.Repeat(`\\`, 3) + `",` + nest("[", MaxJSONDepth) + `]`, true},
		{"an odd run of backslashes escapes", `["` + strings.Repeat(`\\`, 3) + `\"` + strings.Repeat("[", 2*MaxJSONDepth) + `"]`, false},
		{"unterminated string", `["` + strings.Repeat("[", 2*MaxJSONDepth), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := JSONTooDeep([]byte(tc.body)); got != tc.want {
				t.Errorf("JSONTooDeep = %v, want %v", got, tc.want)
			}
		})
	}
}
