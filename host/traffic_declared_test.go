package host

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestTrafficLogShowsDeclaredTools: at debug, the traffic log's answer
// to tools/list ("rpc out") shows the tools as the client gets them: with
// their description and schemas, not the SDK's stand-ins.
func TestTrafficLogShowsDeclaredTools(t *testing.T) {
	reg := loadSource(t, listingConfig)
	var buf httpLog
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := attachStdio(t, NewServer(reg, logger))
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	r := p.next()
	if !strings.Contains(string(r.Result), "Says hello.") {
		t.Fatalf("the client's tools/list lacks the description: %s", r.line)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var out string
		for _, l := range strings.Split(buf.String(), "\n") {
			if strings.Contains(l, "rpc out") && strings.Contains(l, "tools/list") {
				out = l
			}
		}
		if out != "" {
			if !strings.Contains(out, "Says hello.") || !strings.Contains(out, "Who to greet.") {
				t.Fatalf("the traffic log's tools/list answer is not what the client got:\n%s\nclient got: %s", out, r.Result)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no rpc out line for tools/list in the log:\n%s", buf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
