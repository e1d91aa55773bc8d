package host

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// TestHTTPForeignTokenCannotCancel checks that the token of another
// subject cannot stop the calls of a session bound to someone else: its
// notifications/cancelled, or its DELETE, naming the session is refused
// (403, as the SDK refuses any request of a session's other users), and
// the call runs on to its answer, on the direct path and through the SDK.
func TestHTTPForeignTokenCannotCancel(t *testing.T) {
	for _, tc := range []struct {
		how    string
		direct bool
	}{{"cancelled", true}, {"deleted", true}, {"cancelled", false}, {"deleted", false}} {
		how := tc.how
		t.Run(fmt.Sprintf("%s, direct %v", how, tc.direct), func(t *testing.T) {
			is := testoidc.Start(t, authAudience)
			e := startHTTPConfig(t, HTTPOptions{}, authConfig(is, authAudience)+gateTool)
			e.hs.directOff.Store(!tc.direct)
			ana := "Bearer " + is.Mint(testoidc.Token{Claims: is.Claims("ana", map[string]any{"scope": "mcp"})})
			eve := "Bearer " + is.Mint(testoidc.Token{Claims: is.Claims("eve", map[string]any{"scope": "mcp"})})
			init := postInit(t, e, "/mcp", ana)
			sid := init.Header.Get("Mcp-Session-Id")
			if init.StatusCode != http.StatusOK || sid == "" {
				t.Fatalf("initialize: %s", init.Status)
			}
			newSSEReader(init.Body).message(t)
			hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25", "Authorization": ana}
			if r := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr); r.StatusCode != http.StatusAccepted {
				t.Fatalf("notifications/initialized: %s", r.Status)
			}
			dir := t.TempDir()
			resp := rawPost(t, e.base+"/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":55,"method":"tools/call","params":{"name":"gate","arguments":{"dir":%q}}}`, dir), hdr)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("tools/call: %s", resp.Status)
			}
			waitForFile(t, filepath.Join(dir, "started"))
			foreign := with2(hdr, "Authorization", eve)
			foreign["Authorization"] = eve // with2 keeps hdr's
			if status := stopCall(t, e, foreign, how); status != http.StatusForbidden {
				t.Fatalf("eve's call %s: status %d, want 403", how, status)
			}
			releaseGate(t, dir, resp)
		})
	}
}
