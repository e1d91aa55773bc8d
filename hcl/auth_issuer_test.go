package hcl

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestAuthJWKSWithoutIssuer: jwks_url without issuer loads, with a
// warning that tokens' iss is then not checked; with issuer, none.
func TestAuthJWKSWithoutIssuer(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		warn       bool
	}{
		{"jwks_url alone", `jwks_url = "https://login.example.com/keys"`, true},
		{"jwks_url and issuer", `jwks_url = "https://login.example.com/keys"
    issuer = "https://login.example.com"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, "server {\n  auth {\n    audience = \"https://tools.example.com/mcp\"\n    "+tc.body+"\n  }\n}\n", nil)
			if diags.HasErrors() {
				t.Fatalf("errors: %s", diags)
			}
			got := false
			for _, d := range diags {
				got = got || d.Summary == "Token issuer not checked" && d.Severity == hcl.DiagWarning && strings.Contains(d.Detail, "Add issuer")
			}
			if got != tc.warn {
				t.Fatalf("warning %v, want %v: %s", got, tc.warn, diags)
			}
		})
	}
}
