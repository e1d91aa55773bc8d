package host

import (
	"testing"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// TestPrivateCache: the lists and resource reads of a caller with a
// verified token say cacheScope "private" (its answer is its own: shared
// intermediaries must not serve it to others); without auth and scopes
// they stay "public".
func TestPrivateCache(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	const items = `
tool "status" {
  template { text = "up" }
}
resource "runbook" {
  uri    = "docs://runbook"
  scopes = ["ops:read"]
  template { text = "book" }
}
`
	const open = `
tool "status" {
  template { text = "up" }
}
resource "runbook" {
  uri = "docs://runbook"
  template { text = "book" }
}
`
	authed := startHTTPConfig(t, HTTPOptions{}, authServer(is)+items)
	plain := startHTTPConfig(t, HTTPOptions{}, open)
	tok := "Bearer " + is.Mint(testoidc.Token{Claims: is.Claims("ann", map[string]any{"scope": "ops:read"})})
	for _, tc := range []struct {
		name, method, params, auth string
		e                          *httpEnv
		want                       string
	}{
		{"tools/list with a token", "tools/list", "", tok, authed, "private"},
		{"resources/list with a token", "resources/list", "", tok, authed, "private"},
		{"resources/read with a token", "resources/read", `,"uri":"docs://runbook"`, tok, authed, "private"},
		{"tools/list without auth", "tools/list", "", "", plain, "public"},
		{"resources/read without auth", "resources/read", `,"uri":"docs://runbook"`, "", plain, "public"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": tc.method}
			if tc.auth != "" {
				hdr["Authorization"] = tc.auth
			}
			if tc.method == "resources/read" {
				hdr["Mcp-Name"] = "docs://runbook"
			}
			resp := rawPost(t, tc.e.base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":{`+newMeta+tc.params+`}}`, hdr)
			defer resp.Body.Close()
			res, code, msg := httpOutcome(t, tc.method, resp)
			if code != 0 {
				t.Fatalf("error %d %s", code, msg)
			}
			if res["cacheScope"] != tc.want {
				t.Fatalf("cacheScope %v, want %s: %v", res["cacheScope"], tc.want, res)
			}
		})
	}
}
