package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/toolhost/toolhost/internal/testoidc"
)

// authClientID and authClientSecret are the confidential client that
// auth.test.mjs gets tokens for with the client_credentials grant.
const (
	authClientID     = "interop-robot"
	authClientSecret = "interop-robot-secret"
	authScope        = "mcp:tools"
)

// authConfig is the config of TestTypeScriptClientAuth's server: an auth
// block trusting issuer for audience, and two template tools.
func authConfig(issuer, audience string) string {
	return fmt.Sprintf(`server {
  auth {
    issuer        = %q
    audience      = %q
    scopes        = [%q]
    resource_name = "toolhost interop"
  }
}
`, issuer, audience, authScope) + testconfig.Tools(2, "")
}

// authAudiences are the audiences the OAuth tests serve with: the URL of
// /mcp, and the server's origin (which also covers /sse).
var authAudiences = []struct{ name, path string }{
	{"audience is the URL of /mcp", "/mcp"},
	{"audience is the origin", ""},
}

// authServed is a toolhost serve --listen with an auth block, and its
// issuer.
type authServed struct {
	srv      *testconfig.Served
	is       *testoidc.Issuer
	audience string
}

// startAuthServe starts bin serve --listen with an auth block whose
// issuer is a new testoidc on loopback (with the client of authClientID),
// and whose audience is the server's URL with path after it. That URL is
// known once the server listens: it starts with a placeholder, and the
// config is saved again with the real one (a reload).
func startAuthServe(t *testing.T, bin, path string) *authServed {
	t.Helper()
	is := testoidc.Start(t, "")
	is.AddClient(authClientID, authClientSecret)
	cfg := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(cfg, []byte(authConfig(is.URL, "http://127.0.0.1:1/mcp")), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testconfig.ServeHTTP(t, bin, cfg)
	audience := srv.Base + path
	if err := os.WriteFile(cfg, []byte(authConfig(is.URL, audience)), 0o600); err != nil {
		t.Fatal(err)
	}
	awaitResource(t, srv, audience)
	return &authServed{srv: srv, is: is, audience: audience}
}

// TestTypeScriptClientAuth runs auth.test.mjs, the TypeScript SDK's OAuth
// client against `toolhost serve --listen` with an auth block, for each of
// authAudiences.
func TestTypeScriptClientAuth(t *testing.T) {
	node := findNode(t)
	bin := buildToolhost(t)
	for _, tc := range authAudiences {
		t.Run(tc.name, func(t *testing.T) {
			as := startAuthServe(t, bin, tc.path)
			runNode(t, node, nodeTimeout, []string{
				"TOOLHOST_AUTH_BASE=" + as.srv.Base,
				"TOOLHOST_AUTH_AUDIENCE=" + as.audience,
				"TOOLHOST_AUTH_ISSUER=" + as.is.URL,
				"TOOLHOST_AUTH_CLIENT_ID=" + authClientID,
				"TOOLHOST_AUTH_CLIENT_SECRET=" + authClientSecret,
				"TOOLHOST_AUTH_SCOPE=" + authScope,
			}, "auth.test.mjs")
		})
	}
}

// TestGoSDKClientAuth: the MCP Go SDK's client_credentials handler, whose
// check of the Protected Resource Metadata is exact (RFC 9728 3.3: the
// resource is the URL it connects to, or the origin for the metadata at
// the root), gets a token and uses the tools over streamable HTTP, for
// each of authAudiences. It sends no resource indicator, so the token's
// aud is the issuer's default for the client, set to the audience here
// (as an authorization server's audience mapper would).
func TestGoSDKClientAuth(t *testing.T) {
	bin := buildToolhost(t)
	for _, tc := range authAudiences {
		t.Run(tc.name, func(t *testing.T) {
			as := startAuthServe(t, bin, tc.path)
			as.is.SetAudience(as.audience)
			h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{Credentials: &oauthex.ClientCredentials{
				ClientID: authClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: authClientSecret}, Issuer: as.is.URL,
			}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := mcp.NewClient(&mcp.Implementation{Name: "toolhost-auth-interop", Version: "1.0.0"}, nil)
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: as.srv.Base + "/mcp", OAuthHandler: h}, nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) != 2 {
				t.Fatalf("tools/list: %d tools, want 2", len(tools.Tools))
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tool_1", Arguments: map[string]any{"name": "OAuth"}})
			if err != nil {
				t.Fatal(err)
			}
			if text, ok := res.Content[0].(*mcp.TextContent); res.IsError || !ok || text.Text != "tool 1 says hello OAuth x1" {
				t.Fatalf("tool_1: %+v", res)
			}
		})
	}
}

// awaitResource waits until the server's Protected Resource Metadata
// names resource, that is until it has reloaded the config that says so.
func awaitResource(t *testing.T, srv *testconfig.Served, resource string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for pause := 20 * time.Millisecond; ; pause = min(2*pause, 250*time.Millisecond) {
		var doc struct {
			Resource string `json:"resource"`
		}
		resp, err := http.Get(srv.Base + "/.well-known/oauth-protected-resource")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&doc)
			resp.Body.Close()
		}
		if err == nil && doc.Resource == resource {
			return
		}
		last = fmt.Sprintf("resource %q, error %v", doc.Resource, err)
		if time.Now().After(deadline) {
			t.Fatalf("the protected resource metadata does not name %s after the config was saved with it: %s", resource, last)
		}
		select {
		case <-srv.Exited:
			t.Fatalf("toolhost exited: %v", srv.Err)
		case <-time.After(pause):
		}
	}
}
