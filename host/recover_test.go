package host

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/adapters"
)

// panicker is a test backend whose calls panic, as a bug a caller's
// values trigger would.
type panicker struct{}

func (panicker) Call(context.Context, *adapters.Input) (*adapters.Output, error) {
	panic("a bug the caller's values reached")
}

func (panicker) Close() error { return nil }

var panickerOnce sync.Once

// registerPanicker registers the panicker backend once per test binary.
func registerPanicker() {
	panickerOnce.Do(func() {
		adapters.Register(adapters.Kind{Name: "panicker", Summary: "test: panics", Compile: func(*hcl.Block, *adapters.CompileContext) (adapters.Backend, hcl.Diagnostics) {
			return panicker{}, nil
		}})
	})
}

// TestPanicInCallIsAnError: a panic while a request is answered fails
// that request with an internal error and is logged; the server, and the
// session, go on serving.
func TestPanicInCallIsAnError(t *testing.T) {
	registerPanicker()
	e := startHTTPConfig(t, HTTPOptions{}, `
tool "boom" {
  panicker {}
}
tool "fine" {
  template { text = "still here" }
}
`)
	cs := e.connect(nil, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "boom"})
	if err == nil || !strings.Contains(err.Error(), "internal error while it answered tools/call") {
		t.Fatalf("calling boom: %v, want the internal error", err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fine"})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "still here" {
		t.Fatalf("the next call: %v %+v", err, res)
	}
	if log := e.log.String(); !strings.Contains(log, "a bug the caller's values reached") || !strings.Contains(log, "goroutine") {
		t.Errorf("the log has no panic and stack:\n%s", log)
	}
}
