package host

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/toolhost/toolhost/internal/testoidc"
)

// claimTokens mints the tokens of the callers of the claims tests, by
// name: ann has every claim the tools read, bob has no level.
func claimTokens(is *testoidc.Issuer) map[string]string {
	return map[string]string{
		"ann": mintFor(is, "ann", map[string]any{"email": "ann@example.com", "groups": []any{"ops"}, "level": 1, "org": map[string]any{"name": "acme"}}),
		"bob": mintFor(is, "bob", map[string]any{"email": "bob@example.com", "groups": []any{"dev"}}),
	}
}

// TestClaimsOverHTTP calls tools that read claims over real HTTP, with
// a token per client, with and without sessions: each caller's claims
// reach the backends, a token without a claim is refused, and the
// caller's token never reaches the upstream.
func TestClaimsOverHTTP(t *testing.T) {
	up := newUpstreamRecorder(t)
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{}, oidcServer(is)+claimsTools(up.srv.URL))
	tokens := claimTokens(is)
	connect := func(t *testing.T, token, protocol string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		tr := &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}
		cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	for _, protocol := range []string{sessionProtocol, ""} {
		name := "sessions"
		if protocol == "" {
			name = "client default"
		}
		t.Run(name, func(t *testing.T) {
			ann, bob := connect(t, tokens["ann"], protocol), connect(t, tokens["bob"], protocol)
			tools, err := bob.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) != 6 {
				t.Errorf("bob sees %d tools, want all 6", len(tools.Tools))
			}
			if got := callText(t, ann, "whoami", nil); got != "ann@example.com in ops, level 2, org acme" {
				t.Errorf("whoami for ann: %q", got)
			}
			res, err := bob.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
			if err != nil {
				t.Fatal(err)
			}
			if text := testconfig.ResultText(res); !res.IsError || !strings.Contains(text, `the caller's token has no claim "level"`) {
				t.Errorf("whoami for bob: isError=%v %q, want the missing claim named", res.IsError, text)
			}
			if got := callText(t, bob, "upstream", nil); got != "ok" {
				t.Errorf("upstream for bob: %q", got)
			}
			got := up.last(t)
			if got.URL.Path != "/users/bob@example.com/items" || got.Header.Get("X-User") != "bob@example.com" {
				t.Errorf("upstream got %s with X-User %q", got.URL, got.Header.Get("X-User"))
			}
			if a := got.Header.Get("Authorization"); a != "" {
				t.Errorf("upstream got Authorization %q: the caller's token must not be forwarded", a)
			}
		})
	}
	t.Run("no token", func(t *testing.T) {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		_, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp"}, nil)
		if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("connect without a token: %v, want it refused", err)
		}
	})
}
