package linebreak

import "testing"

func TestLoneCR(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
		at   []int // the offsets of lone CRs
	}{
		{"", false, nil},
		{"a\nb\n", false, nil},
		{"a\r\nb\r\n", false, nil},
		{"a\rb", true, []int{1}},
		{"a\r", true, []int{1}},
		{"\r", true, []int{0}},
		{"a\r\n\rb\r\r\n", true, []int{3, 5}},
	} {
		if got := HasLoneCR([]byte(tc.src)); got != tc.want {
			t.Errorf("HasLoneCR(%q) = %v, want %v", tc.src, got, tc.want)
		}
		var at []int
		for i := -1; i <= len(tc.src); i++ {
			if LoneCRAt([]byte(tc.src), i) {
				at = append(at, i)
			}
		}
		if len(at) != len(tc.at) || len(at) > 0 && (at[0] != tc.at[0] || at[len(at)-1] != tc.at[len(tc.at)-1]) {
			t.Errorf("LoneCRAt in %q: %v, want %v", tc.src, at, tc.at)
		}
	}
}
