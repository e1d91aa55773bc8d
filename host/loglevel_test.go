package host

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
)

// TestHTTPLogLevelPerRequest: a 2026-07-28 request gets the log lines of
// its call at or above the level its io.modelcontextprotocol/logLevel
// asks for, and none when it asks for none: that protocol has no
// logging/setLevel, and no default level either.
func TestHTTPLogLevelPerRequest(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, httpFeatureConfig)
	for i, tc := range []struct {
		name, level string // level "": none asked for
		tool        string
		want        []string
	}{
		{"no level, info line", "", "info_log", nil},
		{"no level, warning line", "", "warning_log", nil},
		{"info, info line", "info", "info_log", []string{"info info-line"}},
		{"info, warning line", "info", "warning_log", []string{"warning warning-line"}},
		{"error, warning line", "error", "warning_log", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
			if tc.level != "" {
				meta += `,"io.modelcontextprotocol/logLevel":"` + tc.level + `"`
			}
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"_meta":{%s},"name":%q,"arguments":{}}}`, i+1, meta, tc.tool)
			resp := rawPost(t, e.base+"/mcp", body, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tc.tool})
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("call: %s %s", resp.Status, b)
			}
			r := newSSEReader(resp.Body)
			var got []string
			for {
				m := r.message(t)
				if _, ok := m["id"]; ok {
					if m["error"] != nil {
						t.Fatalf("call: %v", m["error"])
					}
					break
				}
				if p, _ := m["params"].(map[string]any); m["method"] == "notifications/message" {
					got = append(got, fmt.Sprintf("%v %v", p["level"], p["data"]))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("logs %q, want %q", got, tc.want)
			}
		})
	}
}
