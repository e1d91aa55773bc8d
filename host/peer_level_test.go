package host

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSessionPeerWants checks when a call's log line at a level is known
// not to reach the client: only below the level noted for the session,
// and never when the request sets a level of its own.
func TestSessionPeerWants(t *testing.T) {
	noted := func(l mcp.LoggingLevel) func(*mcp.ServerSession) (mcp.LoggingLevel, bool) {
		return func(*mcp.ServerSession) (mcp.LoggingLevel, bool) { return l, l != "" }
	}
	for _, tc := range []struct {
		name  string
		peer  *sessionPeer
		level mcp.LoggingLevel
		want  bool
	}{
		{"below the session's level", &sessionPeer{noted: noted("warning")}, "debug", false},
		{"at the session's level", &sessionPeer{noted: noted("warning")}, "warning", true},
		{"above the session's level", &sessionPeer{noted: noted("warning")}, "error", true},
		{"session at debug", &sessionPeer{noted: noted("debug")}, "debug", true},
		{"no level noted", &sessionPeer{noted: noted("")}, "debug", true},
		{"level unknown", &sessionPeer{}, "debug", true},
		{"the request's own level", &sessionPeer{noted: noted("error"), ownLevel: true}, "debug", true},
		{"a level that is no level", &sessionPeer{noted: noted("warning")}, "verbose", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.peer.wants(tc.level); got != tc.want {
				t.Errorf("wants(%s) = %v, want %v", tc.level, got, tc.want)
			}
			rep := &callReporter{peer: tc.peer}
			if got := rep.Wants(string(tc.level)); got != tc.want {
				t.Errorf("callReporter.Wants(%s) = %v, want %v", tc.level, got, tc.want)
			}
		})
	}
	if (*callReporter)(nil).Wants("error") {
		t.Error("a nil callReporter wants lines")
	}
}

// TestHTTPToolDebugLine: an http tool's request line at debug reaches a
// client that set its level to debug, and the server knows that a client
// at the default level would drop it.
func TestHTTPToolDebugLine(t *testing.T) {
	url, _ := connCountingUpstream(t)
	srv := NewServer(loadSource(t, pingConfig(url)("other")), slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	logs := make(chan *mcp.LoggingMessageParams, 16)
	ss, cs := connectInMemoryWith(t, srv, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { logs <- r.Params },
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	peer := &sessionPeer{ss: ss, noted: srv.notedLevel}

	if peer.wants("debug") {
		t.Error("at the default level, the server expects a debug line to reach the client")
	}
	callText(t, cs, "ping", nil)
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if !peer.wants("debug") {
		t.Error("after setLevel debug, the server expects a debug line not to reach the client")
	}
	callText(t, cs, "ping", nil)
	// Notifications are handled in the order they came: a line of the
	// first call would come first.
	select {
	case p := <-logs:
		if got := fmt.Sprint(p.Data); p.Level != "debug" || !strings.HasPrefix(got, "GET ") || !strings.HasSuffix(got, ": HTTP 200, 4 bytes") {
			t.Errorf("first log line: %s %q, want the debug line of the second call's request", p.Level, got)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no log line after setLevel debug")
	}
}
