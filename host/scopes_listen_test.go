package host

import (
	"testing"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// TestScopesListen: subscriptions/listen, through which the SDK
// subscribes to resources itself, is refused for a resource the caller's
// token lacks the scopes of, as resources/subscribe is; with them, or
// for a resource without scopes, the stream is acknowledged.
func TestScopesListen(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{}, authServer(is)+`
resource "public" {
  uri = "docs://public"
  template { text = "public" }
}
resource "runbook" {
  uri    = "docs://runbook"
  scopes = ["ops:read"]
  template { text = "book" }
}
`)
	for _, tc := range []struct {
		name, scope, uris string
		code              int64
	}{
		{"public", "", `["docs://public"]`, 0},
		{"scoped, without the scope", "", `["docs://public","docs://runbook"]`, codeInsufficientScope},
		{"scoped, with the scope", "ops:read", `["docs://runbook"]`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := is.Mint(testoidc.Token{Claims: is.Claims("ann", map[string]any{"scope": tc.scope})})
			body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{` + newMeta + `,"notifications":{"resourceSubscriptions":` + tc.uris + `}}}`
			resp := rawPost(t, e.base+"/mcp", body, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen", "Authorization": "Bearer " + tok})
			defer resp.Body.Close()
			m := newSSEReader(resp.Body).message(t)
			_, code, msg := rpcOutcome(m)
			if code != tc.code {
				t.Fatalf("first message %v (error %d %s), want error code %d", m, code, msg, tc.code)
			}
			if code == 0 && m["method"] != "notifications/subscriptions/acknowledged" {
				t.Fatalf("first message %v, want the acknowledgement", m)
			}
		})
	}
}
