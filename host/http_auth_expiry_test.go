package host

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// TestHTTPOAuthStreamEndsAtExpiry: an event stream opened with a token
// (streamable HTTP's GET, the SSE transport's) ends when the token
// expires; a fresh token opens one again.
func TestHTTPOAuthStreamEndsAtExpiry(t *testing.T) {
	const audience = "https://tools.example.com"
	is := testoidc.Start(t, audience)
	e := startHTTPConfig(t, HTTPOptions{}, strings.Replace(authConfig(is, audience), `clock_skew        = "5s"`, `clock_skew        = "1s"`, 1))
	mint := func(life time.Duration) string {
		return "Bearer " + is.Mint(testoidc.Token{Claims: is.Claims("ana", map[string]any{"scope": "mcp", "exp": time.Now().Add(life).Unix()})})
	}
	for _, tc := range []struct {
		name string
		open func(t *testing.T, auth string) *http.Response
	}{
		{"streamable GET", func(t *testing.T, auth string) *http.Response {
			resp := postInit(t, e, "/mcp", auth)
			resp.Body.Close()
			req, _ := http.NewRequest(http.MethodGet, e.base+"/mcp", nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Authorization", auth)
			req.Header.Set("Mcp-Session-Id", resp.Header.Get("Mcp-Session-Id"))
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			get, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { get.Body.Close() })
			return get
		}},
		{"SSE transport", func(t *testing.T, auth string) *http.Response {
			return rawGetPath(t, e, "/sse", auth)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := mint(2 * time.Second)
			resp := tc.open(t, tok)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("open: %s", resp.Status)
			}
			ended := make(chan error, 1)
			go func() { _, err := io.Copy(io.Discard, resp.Body); ended <- err }()
			select {
			case <-ended:
			case <-time.After(time.Minute):
				t.Fatal("the stream is still open a minute after its token expired")
			}
			if fresh := rawGetPath(t, e, "/sse", mint(time.Hour)); fresh.StatusCode != http.StatusOK {
				t.Errorf("a fresh token: %s", fresh.Status)
			}
		})
	}
}
