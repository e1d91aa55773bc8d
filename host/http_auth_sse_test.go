package host

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// TestHTTPOAuthSSEAudienceNote: an audience ending in /mcp, which OAuth
// clients of the SSE transport refuse for /sse (interop's
// TestTypeScriptClientAuth shows the TypeScript SDK's doing so), gets a
// note in the log naming the origin to use instead; the origin gets none.
func TestHTTPOAuthSSEAudienceNote(t *testing.T) {
	const note = "OAuth clients of the SSE transport (/sse) cannot connect"
	for _, tc := range []struct {
		audience string
		want     bool
	}{
		{"https://tools.example.com/mcp", true},
		{"https://tools.example.com/team/mcp/", true},
		{"https://tools.example.com", false},
		{"https://tools.example.com/", false},
		{"https://tools.example.com/team", false},
	} {
		t.Run(tc.audience, func(t *testing.T) {
			is := testoidc.Start(t, tc.audience)
			e := startHTTPConfig(t, HTTPOptions{}, authConfig(is, tc.audience))
			// The metadata is served once the verifier is made, and its
			// notes logged.
			resp, err := http.Get(e.base + prmPath)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %s", prmPath, resp.Status)
			}
			log := e.log.String()
			if got := strings.Contains(log, note); got != tc.want {
				t.Fatalf("note in the log: %v, want %v:\n%s", got, tc.want, log)
			}
			if tc.want && !strings.Contains(log, "set audience to the server's origin (https://tools.example.com)") {
				t.Fatalf("the note does not name the origin:\n%s", log)
			}
		})
	}
}
