package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/toolhost/toolhost/internal/testoidc"
)

// scopedServeConfig is groupConfig behind an auth block that trusts the
// issuer at issuer for audience, with an exec tool that reads the
// caller's email and touches mark when it runs.
func scopedServeConfig(issuer, audience, mark string) string {
	return fmt.Sprintf(`
server {
  auth {
    issuer   = %q
    audience = %q
  }
}
tool "whoami" {
  exec {
    command = %s
  }
}
`, issuer, audience, testconfig.ProgramList(`"touch"`, testconfig.HCLString(mark), `"print"`, `claim("email")`)) + groupConfig
}

// TestServeHTTPScopesAndClaims serves a config with an auth block from a
// real serve --listen process, with tokens of a real issuer: what a
// caller sees and may call follows its token's scopes, on the server's
// path and a group's, and a tool reads the caller's claims, or is
// refused before it runs when the token lacks one.
func TestServeHTTPScopesAndClaims(t *testing.T) {
	const audience = "https://tools.example.com/mcp"
	is := testoidc.Start(t, audience)
	mark := filepath.Join(t.TempDir(), "ran")
	s := startHTTPServe(t, nil, writeConfig(t, scopedServeConfig(is.URL, audience, mark)))
	mint := func(sub string, extra map[string]any) string {
		return is.Mint(testoidc.Token{Claims: is.Claims(sub, extra)})
	}
	plain := mint("ana", map[string]any{"email": "ana@example.com"})
	ops := mint("olu", map[string]any{"scope": "ops ops:write", "email": "olu@example.com"})
	noEmail := mint("nik", map[string]any{"scope": "ops ops:write"})
	connect := func(t *testing.T, path, token string) (*mcp.ClientSession, error) {
		tr := &mcp.StreamableClientTransport{Endpoint: s.Base + path, HTTPClient: &http.Client{Transport: authBearer(token)}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(), tr, nil)
		if err == nil {
			t.Cleanup(func() { _ = cs.Close() })
		}
		return cs, err
	}

	t.Run("lists", func(t *testing.T) {
		for _, tc := range []struct {
			name, path, token string
			want              []string
		}{
			{"no scopes", "/mcp", plain, []string{"status", "whoami"}},
			{"ops", "/mcp", ops, []string{"restart", "status", "whoami"}},
			{"group", "/mcp/ops", ops, []string{"restart"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				cs, err := connect(t, tc.path, tc.token)
				if err != nil {
					t.Fatal(err)
				}
				res, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tool := range res.Tools {
					names = append(names, tool.Name)
				}
				slices.Sort(names)
				if !slices.Equal(names, tc.want) {
					t.Fatalf("tools %v, want %v", names, tc.want)
				}
			})
		}
	})

	t.Run("group without its scope", func(t *testing.T) {
		if _, err := connect(t, "/mcp/ops", plain); err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Fatalf("connected to the group without its scope: %v", err)
		}
	})

	t.Run("call without the scope", func(t *testing.T) {
		for _, tc := range []struct {
			name, token string
			status      int
		}{{"refused", plain, http.StatusForbidden}, {"allowed", ops, http.StatusOK}} {
			t.Run(tc.name, func(t *testing.T) {
				// A call of the sessionless protocol 2026-07-28.
				resp := s.mcpPost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"restart","arguments":{},`+
					`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
					map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "restart", "Authorization": "Bearer " + tc.token}, false)
				body, _ := io.ReadAll(resp.Body)
				h := resp.Header.Get("WWW-Authenticate")
				if resp.StatusCode != tc.status {
					t.Fatalf("%s, want %d: %s", resp.Status, tc.status, body)
				}
				if tc.status == http.StatusOK {
					if !strings.Contains(string(body), "restarted") {
						t.Fatalf("restart with the scope: %s", body)
					}
					return
				}
				if !strings.Contains(h, `error="insufficient_scope"`) || !strings.Contains(h, `scope="ops:write"`) || !strings.Contains(string(body), `"ops:write"`) {
					t.Fatalf("WWW-Authenticate %q: %s", h, body)
				}
			})
		}
	})

	t.Run("claims", func(t *testing.T) {
		cs, err := connect(t, "/mcp", noEmail)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, `the caller's token has no claim "email"`) {
			t.Fatalf("whoami without an email: isError=%v %q, want the missing claim named", res.IsError, text)
		}
		if _, err := os.Stat(mark); !os.IsNotExist(err) {
			t.Fatalf("the tool ran for a token without the claim: %v", err)
		}
		for _, tc := range []struct{ token, want string }{{plain, "ana@example.com"}, {ops, "olu@example.com"}} {
			cs, err := connect(t, "/mcp", tc.token)
			if err != nil {
				t.Fatal(err)
			}
			if got := toolText(t, cs, "whoami", nil); got != tc.want {
				t.Fatalf("whoami = %q, want %q", got, tc.want)
			}
		}
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("the tool did not run for a token with the claim: %v", err)
		}
	})
}
