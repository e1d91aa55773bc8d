package host

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestDirectCallAfterShutdownRunsNothing: a call of the stdio direct path
// that begins after Shutdown gets the shutdown's reason, and its command
// never starts, as TestCallAfterShutdownRunsNothing checks of a call
// without a client: the connection's context, which its calls derive
// from, is ended by an AfterFunc, on a goroutine of its own.
func TestDirectCallAfterShutdownRunsNothing(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	p := startStdio(t, loadSource(t, `
tool "touch" {
  param "path" {
    type = string
  }
  exec {
    `+helperCommand(`"touch"`, `param.path`)+`
  }
}
`))
	p.initialize()
	reason := errors.New("the test stops the host")
	p.srv.ShutdownBecause(reason)
	args, _ := json.Marshal(map[string]string{"path": marker})
	before := directTaken.Load()
	// Many calls: an asynchronous cancellation would lose the race now
	// and then.
	for i := 1; i <= 50; i++ {
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"touch","arguments":` + string(args) + `}}`)
		r := p.next()
		var res mcp.CallToolResult
		if err := json.Unmarshal(r.Result, &res); err != nil || !res.IsError || !strings.Contains(testconfig.ResultText(&res), reason.Error()) {
			t.Fatalf("call %d after Shutdown: %s; want an error result giving the reason", i, r.line)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("call %d after Shutdown ran its command", i)
		}
	}
	if directTaken.Load() == before {
		t.Fatal("no call took the direct path")
	}
}

// TestCallContextUnderLifeBound: a call's context under the connection's
// (lifeBound) ends with Shutdown, giving its reason, whether the call
// began before it or after it; one that begins after it is ended before
// callContext returns.
func TestCallContextUnderLifeBound(t *testing.T) {
	reason := errors.New("the test stops the host")
	reg := loadSource(t, `
tool "t" {
  template {
    text = "x"
  }
}
`)
	for _, c := range []struct {
		name  string
		after bool // the call begins after Shutdown
	}{{"call before shutdown", false}, {"call after shutdown", true}} {
		t.Run(c.name, func(t *testing.T) {
			// Many servers: an asynchronous cancellation would lose the
			// race now and then.
			for i := 0; i < 200; i++ {
				srv := NewServer(reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
				conn, release := srv.lifeBound(context.Background())
				var ctx context.Context
				var cancel context.CancelFunc
				if c.after {
					srv.ShutdownBecause(reason)
					ctx, cancel = srv.callContext(conn)
					if ctx.Err() == nil {
						t.Fatalf("server %d: the context of a call that began after Shutdown had not ended", i)
					}
				} else {
					ctx, cancel = srv.callContext(conn)
					srv.ShutdownBecause(reason)
					<-ctx.Done()
				}
				if cause := context.Cause(ctx); !errors.Is(cause, reason) {
					t.Fatalf("server %d: the call's context ended with %v, want the reason %v", i, cause, reason)
				}
				cancel()
				release()
			}
		})
	}
}
