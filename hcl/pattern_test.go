package hcl

import (
	"regexp"
	"strings"
	"testing"
)

// TestPatternLikeRegexp checks that a Pattern accepts and refuses the same
// sources as regexp.Compile, with the same error, and matches the same
// strings.
func TestPatternLikeRegexp(t *testing.T) {
	inputs := []string{"", "abc", "a.b", "ABC_1", "x y", "日本", strings.Repeat("a", 200), "-rf", "\x00"}
	for _, src := range []string{
		`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`, `^\d+$`, `b`, `(?i)^abc$`, `^$`, `\p{Han}`,
		`(`, `a{1001}`, `[z-a]`, `\8`, `(?<name`, `x**`,
	} {
		t.Run(src, func(t *testing.T) {
			want, wantErr := regexp.Compile(src)
			got, err := NewPattern(src)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("NewPattern error %v, regexp.Compile error %v", err, wantErr)
			}
			if err != nil {
				if err.Error() != wantErr.Error() {
					t.Fatalf("error %q, regexp.Compile says %q", err, wantErr)
				}
				return
			}
			if got.String() != src {
				t.Errorf("String() = %q, want %q", got.String(), src)
			}
			for _, in := range inputs {
				if g, w := got.MatchString(in), want.MatchString(in); g != w {
					t.Errorf("MatchString(%q) = %v, regexp says %v", in, g, w)
				}
			}
		})
	}
}
