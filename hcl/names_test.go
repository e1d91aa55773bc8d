package hcl

import (
	"testing"

	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// identifierCases are names validIdentifier must judge as HCL does.
var identifierCases = []string{
	"", "a", "Z", "_", "_x", "city", "city_name", "city-name", "a1", "x-1_y",
	"1a", "-a", "a b", "a.b", "a=b", "a\n", " a", "a ", "é", "café", "名前",
	"a\u00a0", "a\u200b", "\xff", "a\xffb", "Ω-1", "a$", "${a}", "a\"",
}

func TestValidIdentifier(t *testing.T) {
	for _, s := range identifierCases {
		t.Run(s, func(t *testing.T) {
			if got, want := validIdentifier(s), hclsyntax.ValidIdentifier(s); got != want {
				t.Errorf("validIdentifier(%q) = %v, HCL says %v", s, got, want)
			}
		})
	}
}

// FuzzValidIdentifier checks that validIdentifier's ASCII fast path
// agrees with HCL's scanner on every input.
func FuzzValidIdentifier(f *testing.F) {
	for _, s := range identifierCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validIdentifier(s), hclsyntax.ValidIdentifier(s); got != want {
			t.Errorf("validIdentifier(%q) = %v, HCL says %v", s, got, want)
		}
	})
}
