package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// authBearer adds a bearer token to every request.
type authBearer string

func (b authBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeHTTPOAuth: serve --listen with an auth block refuses requests
// without a token as the MCP authorization spec says, serves callers with
// one (over streamable HTTP and SSE), and says that --auth-token-env is
// ignored beside it.
func TestServeHTTPOAuth(t *testing.T) {
	const audience = "https://tools.example.com/mcp"
	is := testoidc.Start(t, audience)
	cfg := writeConfig(t, fmt.Sprintf(`
server {
  auth {
    issuer   = %q
    audience = %q
    scopes   = ["mcp"]
  }
}
tool "hello" {
  description = "Greets."
  template { text = "hello" }
}
`, is.URL, audience))
	s := startHTTPServe(t, []string{"STATIC_TOKEN=static-secret"}, "--auth-token-env", "STATIC_TOKEN", cfg)
	if !strings.Contains(s.Log(), "--auth-token-env is ignored while the config has an auth block") {
		t.Fatalf("no warning about --auth-token-env in the log:\n%s", s.Log())
	}
	for _, tc := range []struct {
		name, auth string
		status     int
	}{
		{"no token", "", 401},
		{"the static token", "Bearer static-secret", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, s.Base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := `resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/mcp"`
			if h := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != tc.status || !strings.Contains(h, want) {
				t.Fatalf("status %d, WWW-Authenticate %q", resp.StatusCode, h)
			}
		})
	}
	tok := is.Mint(testoidc.Token{Claims: is.Claims("ana", map[string]any{"scope": "mcp"})})
	for _, sse := range []bool{false, true} {
		cs := s.connect(sse, nil, &http.Client{Transport: authBearer(tok)})
		if got := toolText(t, cs, "hello", nil); got != "hello" {
			t.Fatalf("hello (sse=%v) = %q", sse, got)
		}
	}
}
