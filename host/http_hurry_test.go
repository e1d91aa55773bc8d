package host

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// ctxProbe is a backend whose calls wait for their context to end, and
// hand it to the test first: what the test looks at is the context a
// call's backend gets.
type ctxProbe struct{ ctxs chan context.Context }

func (p ctxProbe) Call(ctx context.Context, _ *adapters.Input) (*adapters.Output, error) {
	p.ctxs <- ctx
	<-ctx.Done()
	return nil, ctx.Err()
}

func (ctxProbe) Close() error { return nil }

var (
	probeOnce sync.Once
	probeCtxs = make(chan context.Context, 8)
)

// registerCtxProbe registers the block ctx_probe { }, once per process.
func registerCtxProbe() {
	probeOnce.Do(func() {
		adapters.Register(adapters.Kind{Name: "ctx_probe", Summary: "test: waits for its context", Compile: func(*hcl.Block, *adapters.CompileContext) (adapters.Backend, hcl.Diagnostics) {
			return ctxProbe{ctxs: probeCtxs}, nil
		}})
	})
}

// TestHTTPHurryCancelsBeforeKill: after a second signal (Hurry), the calls
// still running are cancelled, with the reason, before KillCommands kills
// their commands. Were the cancellation left to goroutines of its own, a
// command killed first would end its call with "killed by signal 9", and
// the client would not learn why.
func TestHTTPHurryCancelsBeforeKill(t *testing.T) {
	registerCtxProbe()
	hurry := make(chan struct{})
	var mu sync.Mutex
	var callCtx context.Context
	var atKill []string // what KillCommands found
	e := startHTTPConfig(t, HTTPOptions{ShutdownTimeout: time.Minute, Hurry: hurry, KillCommands: func() {
		mu.Lock()
		defer mu.Unlock()
		if callCtx == nil {
			atKill = append(atKill, "no call")
		} else if callCtx.Err() == nil {
			atKill = append(atKill, "the call not cancelled yet")
		}
	}}, `
tool "wait" {
  description = "waits until stopped"
  ctx_probe {}
}
`)
	cs := e.connect(nil, nil)
	answer := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		switch {
		case err != nil:
			answer <- "transport error: " + err.Error()
		case len(res.Content) == 0:
			answer <- "no content"
		default:
			answer <- res.Content[0].(*mcp.TextContent).Text
		}
	}()
	select {
	case ctx := <-probeCtxs:
		mu.Lock()
		callCtx = ctx
		mu.Unlock()
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not start")
	}
	// One P: a goroutine that cancels the call cannot run beside the
	// shutdown, between its stopping the calls and its KillCommands.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	stopped := make(chan error, 1)
	go func() { stopped <- e.stop() }()
	testconfig.WaitFor(t, "the shutdown starts", func() bool { return strings.Contains(e.log.String(), "shutting down") })
	close(hurry)
	select {
	case text := <-answer:
		if !strings.Contains(text, "second signal") {
			t.Errorf("the call's answer = %q, want it to name the second signal", text)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no answer")
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(atKill) > 0 {
		t.Fatalf("KillCommands ran with %s", strings.Join(atKill, ", "))
	}
}
