package host

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestCallAfterShutdownRunsNothing: a call that begins after Shutdown (a
// request read as the stop signal came) gets the shutdown's reason, and
// its command never starts. Its context was ended asynchronously before,
// so the command could start, and be killed only a moment later.
func TestCallAfterShutdownRunsNothing(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	reg := loadSource(t, `
tool "touch" {
  param "path" {
    type = string
  }
  exec {
    `+helperCommand(`"touch"`, `param.path`)+`
  }
}
`)
	srv := NewServer(reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	srv.ShutdownBecause(ErrShuttingDown)
	args, _ := json.Marshal(map[string]string{"path": marker})
	// Many calls: the asynchronous cancellation lost the race now and then.
	for i := range 200 {
		res, err := srv.CallTool(context.Background(), "touch", args)
		if err == nil && (res == nil || !res.IsError) {
			t.Fatalf("call %d after Shutdown succeeded: %+v", i, res)
		}
		if _, statErr := os.Stat(marker); statErr == nil {
			t.Fatalf("call %d after Shutdown ran its command", i)
		}
		msg := ""
		if err != nil {
			msg = err.Error()
		} else {
			msg = testconfig.ResultText(res)
		}
		if !strings.Contains(msg, ErrShuttingDown.Error()) {
			t.Fatalf("call %d after Shutdown: %q, want the reason %q", i, msg, ErrShuttingDown)
		}
	}
}

// TestShutdownAnswersCallsWaitingForASlot: a call waiting for one of the
// max_concurrent_calls slots when the host shuts down is answered at
// once, and its answer gives the reason, as a running call's does; it
// starts nothing.
func TestShutdownAnswersCallsWaitingForASlot(t *testing.T) {
	t.Parallel()
	srv := NewServer(loadSource(t, strings.Replace(gateConfig, "%d", "1", 1)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	dir := t.TempDir()
	args, _ := json.Marshal(map[string]string{"dir": dir})
	answers := make(chan string, 2)
	call := func() {
		res, err := srv.CallTool(context.Background(), "gate", args)
		switch {
		case err != nil:
			answers <- "error: " + err.Error()
		case !res.IsError:
			answers <- "not an error: " + testconfig.ResultText(res)
		default:
			answers <- testconfig.ResultText(res)
		}
	}
	go call()
	testconfig.WaitFor(t, "the first call runs", func() bool { return countStarted(dir) == 1 })
	go call()
	time.Sleep(100 * time.Millisecond) // the second call waits for the slot
	reason := errors.New("the test stops the host")
	srv.ShutdownBecause(reason)
	var texts []string
	for range 2 {
		select {
		case text := <-answers:
			texts = append(texts, text)
		case <-time.After(10 * time.Second):
			t.Fatalf("answers within 10s of the shutdown: %q, want two", texts)
		}
	}
	var waited bool
	for _, text := range texts {
		if !strings.HasSuffix(text, ": "+reason.Error()) && !strings.HasSuffix(text, ": "+reason.Error()+".") {
			t.Errorf("answer %q does not give the reason %q", text, reason)
		}
		waited = waited || strings.Contains(text, "while it waited for one of the 1 calls running")
	}
	if !waited {
		t.Errorf("answers %q: none says the call waited for a slot", texts)
	}
	if n := countStarted(dir); n != 1 {
		t.Errorf("%d commands started, want 1: the waiting call ran", n)
	}
}

// stopStdioDuringCall calls tool with args on p, waits for running to
// return (the command runs), stops the host (ShutdownBecause), and checks
// that the call is answered at once, with the reason: the host does not
// wait for the command, which may still have its kill_timeout.
func stopStdioDuringCall(t *testing.T, p *stdioPeer, tool string, args map[string]any, running func()) {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + string(params) + `}`)
	running()
	reason := errors.New("the test stops the host")
	start := time.Now()
	p.srv.ShutdownBecause(reason)
	r := p.next()
	var res mcp.CallToolResult
	if err := json.Unmarshal(r.Result, &res); err != nil || string(r.ID) != "1" || !res.IsError || !strings.Contains(testconfig.ResultText(&res), "the call was cancelled: "+reason.Error()) {
		t.Errorf("the answer: %s; want an error result giving the reason", r.line)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the answer came %s after the shutdown: it waited for the command", took)
	}
}

// stopHTTPDuringCall serves config over HTTP, calls tool with args from a
// client (over SSE when sse is true), waits for running to return (the
// command runs), and shuts the server down past its ShutdownTimeout: the
// call must be answered at once, naming --shutdown-timeout, and the
// shutdown must not wait for the command, and close every session.
func stopHTTPDuringCall(t *testing.T, config string, sse bool, tool string, args map[string]any, running func()) {
	t.Helper()
	const timeout = 300 * time.Millisecond
	e := startHTTPConfig(t, HTTPOptions{ShutdownTimeout: timeout}, config)
	var cs *mcp.ClientSession
	if sse {
		cs = e.connectSSE(nil)
	} else {
		cs = e.connect(nil, nil)
	}
	answer := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		switch {
		case err != nil:
			answer <- "transport error: " + err.Error()
		case !res.IsError:
			answer <- "not an error: " + testconfig.ResultText(res)
		default:
			answer <- testconfig.ResultText(res)
		}
	}()
	running()
	start := time.Now()
	stopped := make(chan error, 1)
	go func() { stopped <- e.stop() }()
	select {
	case text := <-answer:
		if !strings.Contains(text, "the call was cancelled: toolhost is shutting down and the calls still running after --shutdown-timeout") {
			t.Errorf("the call's answer = %q, want an error result naming --shutdown-timeout", text)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10s of the shutdown")
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the shutdown still runs 10s after it began")
	}
	if took := time.Since(start); took > timeout+2*time.Second {
		t.Errorf("the shutdown took %s: it waited for the command", took)
	}
	if strings.Contains(e.log.String(), "did not close") {
		t.Errorf("a session did not close:\n%s", e.log.String())
	}
}
