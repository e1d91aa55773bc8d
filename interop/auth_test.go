package interop

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// TestTypeScriptClientAuth runs auth.test.mjs: the TypeScript SDK's OAuth
// client against `toolhost serve --listen` with an auth block, whose
// issuer is a testoidc on loopback; with the audience the URL of /mcp, and
// the server's origin (which also covers /sse). The audience is known
// once the server listens: it starts with a placeholder, and the config
// is saved again with the real one (a reload) before node runs.
func TestTypeScriptClientAuth(t *testing.T) {
	node := findNode(t)
	bin := buildToolhost(t)
	for _, tc := range []struct{ name, path string }{
		{"audience is the URL of /mcp", "/mcp"},
		{"audience is the origin", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := testoidc.Start(t, "")
			is.AddClient(authClientID, authClientSecret)
			cfg := filepath.Join(t.TempDir(), "tools.hcl")
			if err := os.WriteFile(cfg, []byte(authConfig(is.URL, "http://127.0.0.1:1/mcp")), 0o600); err != nil {
				t.Fatal(err)
			}
			srv := testconfig.ServeHTTP(t, bin, cfg)
			audience := srv.Base + tc.path
			if err := os.WriteFile(cfg, []byte(authConfig(is.URL, audience)), 0o600); err != nil {
				t.Fatal(err)
			}
			awaitResource(t, srv, audience)
			runNode(t, node, nodeTimeout, []string{
				"TOOLHOST_AUTH_BASE=" + srv.Base,
				"TOOLHOST_AUTH_AUDIENCE=" + audience,
				"TOOLHOST_AUTH_ISSUER=" + is.URL,
				"TOOLHOST_AUTH_CLIENT_ID=" + authClientID,
				"TOOLHOST_AUTH_CLIENT_SECRET=" + authClientSecret,
				"TOOLHOST_AUTH_SCOPE=" + authScope,
			}, "auth.test.mjs")
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
