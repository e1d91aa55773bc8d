package hcl

import (
	"slices"
	"testing"
)

func TestAuthBlock(t *testing.T) {
	const base = `issuer = "https://login.example.com/realms/team"
    audience = "https://tools.example.com/mcp"
`
	tests := []struct {
		name, body      string
		summary, detail string
	}{
		{"minimal", base, "", ""},
		{"loopback http", `issuer = "http://127.0.0.1:8080"
    audience = "http://localhost:8080/mcp"`, "", ""},
		{"introspection with credentials", base + `introspection_url = "https://login.example.com/introspect"
    introspection_client_id = "toolhost"
    introspection_client_secret = env("SECRET")`, "", ""},
		{"none", base + `algorithms = ["none"]`, "Unsigned tokens allowed", `Remove "none"`},
		{"HS384", base + `algorithms = ["ES256", "HS384"]`, "Symmetric algorithm allowed", "Remove HS384"},
		{"unknown algorithm", base + `algorithms = ["RS1"]`, "Unknown algorithm", "EdDSA"},
		{"audience not a URL", `issuer = "https://login.example.com"
    audience = "tools"`, "Invalid URL", `audience "tools" is not an absolute http(s) URL`},
		{"plain http issuer", `issuer = "http://login.example.com"
    audience = "https://tools.example.com/mcp"`, "Invalid URL", "use https"},
		{"fragment", base + `jwks_url = "https://login.example.com/keys#x"`, "Invalid URL", "fragment"},
		{"secret alone", base + `introspection_url = "https://login.example.com/introspect"
    introspection_client_secret = "s"`, "Incomplete introspection credentials", "give both"},
		{"credentials without the endpoint", base + `introspection_client_id = "a"
    introspection_client_secret = "s"`, "Introspection credentials without introspection_url", "Add introspection_url"},
		{"authorization server over http", base + `authorization_servers = ["http://as.example.com"]`, "Invalid URL", "authorization_servers"},
		{"no issuer", `audience = "https://tools.example.com/mcp"`, "Missing token issuer", "jwks_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := loadString(t, "server {\n  auth {\n    "+tt.body+"\n  }\n}\n", map[string]string{"SECRET": "s3cret"})
			if tt.summary == "" {
				if diags.HasErrors() {
					t.Fatalf("unexpected errors: %s", diags)
				}
				if cfg.Server.Auth == nil || cfg.Server.Auth.Audience == "" {
					t.Fatalf("auth %+v", cfg.Server.Auth)
				}
				return
			}
			if !hasDiag(diags, tt.summary, tt.detail) {
				t.Errorf("want a %q error with %q, got %s", tt.summary, tt.detail, diags)
			}
		})
	}
	cfg, diags := loadString(t, "server {\n  auth {\n    "+base+`    resource_name = "Team tools"
    authorization_servers = ["https://a.example.com", "https://b.example.com"]
    introspection_url = "https://login.example.com/introspect"
    introspection_client_id = "toolhost"
    introspection_client_secret = env("SECRET")
  }
}
`, map[string]string{"SECRET": "s3cret"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	a := cfg.Server.Auth
	if a.ResourceName != "Team tools" || !slices.Equal(a.AuthorizationServers, []string{"https://a.example.com", "https://b.example.com"}) ||
		a.IntrospectionClientID != "toolhost" || a.IntrospectionClientSecret != "s3cret" {
		t.Fatalf("auth %+v", a)
	}
}
