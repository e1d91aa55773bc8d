package host

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// TestSDKLogWording: the SDK's log messages that name its Go API are
// written in toolhost's terms, keeping their level and attributes; any
// other message passes as it is.
func TestSDKLogWording(t *testing.T) {
	for _, tc := range []struct {
		name  string
		level slog.Level
		msg   string
		args  []any
		want  []string // in the line
		never []string // not in the line
	}{
		{
			name:  "stateful rejection",
			level: slog.LevelWarn,
			msg:   `rejecting request with protocol version "2026-07-28": this server is stateful; set StreamableHTTPOptions.Stateless = true to accept it`,
			want:  []string{"level=WARN", `refused a request of protocol version \"2026-07-28\" sent in a session`, "without the header", "protocol_version=2026-07-28", "component=mcp"},
			never: []string{"StreamableHTTPOptions", "rejecting request"},
		},
		{
			name:  "stateful rejection of another version",
			level: slog.LevelWarn,
			msg:   `rejecting request with protocol version "2027-01-01": this server is stateful; set StreamableHTTPOptions.Stateless = true to accept it`,
			want:  []string{"protocol_version=2027-01-01", "without the header"},
			never: []string{"StreamableHTTPOptions"},
		},
		{
			name:  "internal error",
			level: slog.LevelError,
			msg:   "jsonrpc2 internal error",
			args:  []any{"error", "boom"},
			want:  []string{"level=ERROR", `msg="internal error in the JSON-RPC connection of a session"`, "error=boom", "component=mcp"},
			never: []string{"jsonrpc2"},
		},
		{
			// Not the SDK's words exactly: left alone.
			name:  "near miss",
			level: slog.LevelWarn,
			msg:   `rejecting request with protocol version "2026-07-28": something else`,
			want:  []string{`rejecting request with protocol version \"2026-07-28\": something else`},
			never: []string{"without the header"},
		},
		{
			name:  "other message",
			level: slog.LevelInfo,
			msg:   "server session connected",
			args:  []any{"session_id", "abc"},
			want:  []string{`msg="server session connected"`, "session_id=abc", "component=mcp"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			l := sdkLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
			l.Log(t.Context(), tc.level, tc.msg, tc.args...)
			line := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("log %q lacks %q", line, w)
				}
			}
			for _, n := range tc.never {
				if strings.Contains(line, n) {
					t.Errorf("log %q has %q", line, n)
				}
			}
		})
	}
}

// TestHTTPSessionModeNewProtocolLog: a 2026-07-28 request sent in a
// session (with its Mcp-Session-Id) is refused (by the SDK, -32022), and
// the log tells the operator what the client did wrong in toolhost's
// terms, not the SDK's. Without the header the request is served
// (TestHTTPSessionlessBesideSessions).
func TestHTTPSessionModeNewProtocolLog(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	init := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	sid := init.Header.Get("Mcp-Session-Id")
	if init.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s, session %q", init.Status, sid)
	}
	resp := rawPost(t, e.base+"/mcp",
		`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Session-Id": sid})
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a 2026-07-28 request in a session: %s, want the SDK's 400", resp.Status)
	}
	log := e.log.String()
	if !strings.Contains(log, `refused a request of protocol version \"2026-07-28\" sent in a session`) || !strings.Contains(log, "without the header") {
		t.Errorf("the log does not say what the client did wrong:\n%s", log)
	}
	for _, sdk := range []string{"StreamableHTTPOptions", "jsonrpc2", "--stateless"} {
		if strings.Contains(log, sdk) {
			t.Errorf("the log names %s:\n%s", sdk, log)
		}
	}
}
