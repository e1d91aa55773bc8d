package hcl

import (
	"strings"
	"testing"
)

// TestTokenExchangeLoadErrors: a token_exchange block that could not
// work is refused when the config loads, pointing at the block or the
// attribute at fault, and one that can (credentials of its own, or the
// introspection client's) loads.
func TestTokenExchangeLoadErrors(t *testing.T) {
	const issuer = `issuer = "https://login.example.com"
    audience = "https://tools.example.com/mcp"`
	const creds = `
    exchange_client_id = "toolhost"
    exchange_client_secret = env("EXCHANGE_SECRET")`
	tool := func(inner string) string {
		return `
tool "items" {
  description = "Items of the caller"
  param "q" { type = string }
  http {
    url = "https://api.example.com/items"
` + inner + `
  }
}`
	}
	exchange := tool(`    token_exchange { audience = "https://api.example.com" }`)
	server := func(auth string) string {
		return `server {
  auth {
    ` + auth + `
  }
}` + exchange
	}
	for _, tc := range []struct {
		name, src string
		summary   string // "" when the config loads
		line      int    // of the error's subject
	}{
		{"no auth block", exchange, "token_exchange without an exchanging auth block", 7},
		{"no issuer", server(`jwks_url = "https://login.example.com/jwks"
    audience = "https://tools.example.com/mcp"` + creds), "token_exchange without an exchanging auth block", 14},
		{"no client credentials", server(issuer), "token_exchange without an exchanging auth block", 12},
		{"half the credentials", server(issuer + `
    exchange_client_id = "toolhost"`), "Incomplete exchange credentials", 5},
		{"own credentials", server(issuer + creds), "", 0},
		{"introspection client", server(issuer + `
    introspection_url = "https://login.example.com/introspect"
    introspection_client_id = "toolhost"
    introspection_client_secret = env("EXCHANGE_SECRET")`), "", 0},
		{"Authorization header too", `server {
  auth {
    ` + issuer + creds + `
  }
}` + tool(`    headers = { authorization = "Bearer fixed" }
    token_exchange { audience = "https://api.example.com" }`), "Authorization header with token_exchange", 14},
		{"no audience", `server {
  auth {
    ` + issuer + creds + `
  }
}` + tool(`    token_exchange { scope = "read" }`), "Missing required argument", 14},
		{"audience from a parameter", `server {
  auth {
    ` + issuer + creds + `
  }
}` + tool(`    token_exchange { audience = param.q }`), "Argument must be constant", 14},
		{"relative resource", `server {
  auth {
    ` + issuer + creds + `
  }
}` + tool(`    token_exchange {
      audience = "https://api.example.com"
      resource = "/v1"
    }`), "Invalid resource", 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tc.src, map[string]string{"EXCHANGE_SECRET": "s3cret"})
			errs := errorsOf(diags)
			if tc.summary == "" {
				if len(errs) > 0 {
					t.Fatalf("want no error, got %s", errs.Error())
				}
				return
			}
			if len(errs) != 1 || errs[0].Summary != tc.summary || errs[0].Subject == nil || errs[0].Subject.Start.Line != tc.line {
				t.Fatalf("want one error %q at line %d, got %s", tc.summary, tc.line, errs.Error())
			}
			if strings.Contains(errs[0].Detail, "s3cret") {
				t.Errorf("the error shows the secret: %s", errs[0].Detail)
			}
		})
	}
}
