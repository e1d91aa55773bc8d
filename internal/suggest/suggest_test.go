package suggest

import "testing"

func TestClosest(t *testing.T) {
	tests := []struct {
		name       string
		given      string
		candidates []string
		want       string
	}{
		{"exact", "city", []string{"city", "country"}, "city"},
		{"one edit", "ctiy", []string{"city", "country"}, "city"},
		{"two edits", "cty", []string{"county", "city"}, "city"},
		{"three edits is too far", "paramter", []string{"param"}, ""},
		{"none", "x", nil, ""},
		{"empty given", "", []string{"ab", "abc"}, "ab"},
		{"closer wins over first by name", "abcx", []string{"ab", "abcy"}, "abcy"},
		{"tie goes to the first by name", "bat", []string{"cat", "bar"}, "bar"},
		{"tie does not depend on order", "bat", []string{"bar", "cat"}, "bar"},
		{"runes, not bytes", "café", []string{"cafe"}, "cafe"},
		{"case only, far in edits", "GET_WEATHER", []string{"get_weather", "get_time"}, "get_weather"},
		{"case only, near in edits", "Echo", []string{"echo"}, "echo"},
		{"case ties go to the first by name", "ABCD", []string{"abcD", "Abcd"}, "Abcd"},
		{"neither near nor equal in case", "GET_WEATHERS", []string{"get_weather"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Closest(tt.given, tt.candidates); got != tt.want {
				t.Errorf("Closest(%q, %q) = %q, want %q", tt.given, tt.candidates, got, tt.want)
			}
		})
	}
}

func TestHint(t *testing.T) {
	tests := []struct {
		given      string
		candidates []string
		want       string
	}{
		{"SIGTREM", []string{"SIGTERM", "SIGINT"}, ` Did you mean "SIGTERM"?`},
		{"zzz", []string{"SIGTERM"}, ""},
	}
	for _, tt := range tests {
		if got := Hint(tt.given, tt.candidates); got != tt.want {
			t.Errorf("Hint(%q, %q) = %q, want %q", tt.given, tt.candidates, got, tt.want)
		}
	}
}
