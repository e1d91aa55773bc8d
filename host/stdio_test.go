package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioIDConfig has a template tool and a tool whose backend outlives its
// cancellation: the command leaves a process in another session holding its
// output, so the call ends about two seconds (the exec adapter's wait and
// drain delays) after it is cancelled. It notes in DIR/started that it
// started.
const stdioIDConfig = `
tool "hello" {
  description = "greets"
  param "name" { type = string }
  template { text = "hello ${param.name}" }
}
tool "linger" {
  description = "runs until cancelled, then lingers"
  param "dir" { type = string }
  exec {
    command = ["sh", "-c", "setsid sleep 5 & echo x > \"$1/started\"; sleep 60", "linger", param.dir]
    timeout = "60s"
  }
}
`

// stdioReply is a reply line as the client reads it; ID stays raw so that
// tests see exactly what was echoed.
type stdioReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

// stdioPeer is the client end of a stdio server run over OS pipes.
type stdioPeer struct {
	t     *testing.T
	in    *os.File // the server's input
	srv   *Server
	lines chan stdioReply
	done  chan error // the server's Run result
}

// startStdio runs a server for reg over OS pipes and returns its client
// end. The server is stopped when the test ends.
func startStdio(t *testing.T, reg *Registry, opts ...ServerOption) *stdioPeer {
	t.Helper()
	return attachStdio(t, NewServer(reg, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...))
}

// attachStdio starts a session of srv over OS pipes, beside those it has.
func attachStdio(t *testing.T, srv *Server) *stdioPeer {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	p := &stdioPeer{t: t, in: inW, srv: srv, lines: make(chan stdioReply, 64), done: make(chan error, 1)}
	go func() {
		p.done <- p.srv.Run(ctx, &StdioTransport{In: inR, Out: outW, Logger: logger, Tasks: p.srv})
		outW.Close()
	}()
	go p.readReplies(outR)
	t.Cleanup(func() {
		cancel()
		inW.Close()
		<-p.done
		inR.Close()
		outR.Close()
	})
	return p
}

// readReplies decodes the server's output lines until it closes.
func (p *stdioPeer) readReplies(out io.Reader) {
	defer close(p.lines)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		r := stdioReply{line: sc.Text()}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			r.line = "NOT JSON: " + r.line
		}
		p.lines <- r
	}
}

// send writes one line to the server.
func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// next returns the next reply, failing after 10 s.
func (p *stdioPeer) next() stdioReply {
	p.t.Helper()
	select {
	case r, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server closed its output")
		}
		return r
	case <-time.After(10 * time.Second):
		p.t.Fatal("no reply within 10s")
	}
	return stdioReply{}
}

// initialize runs the initialize handshake with id 0.
func (p *stdioPeer) initialize() {
	p.t.Helper()
	p.send(initializeLine(0))
	if r := p.next(); string(r.ID) != "0" || r.Error != nil {
		p.t.Fatalf("initialize: %s", r.line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// initializeLine is an initialize request.
func initializeLine(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, id)
}

// helloLine is a tools/call of the template tool with the id given as JSON.
func helloLine(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"hello","arguments":{"name":"world"}}}`
}

// wantError fails unless r is an error reply with the code and id (JSON)
// given and a message containing want.
func wantError(t *testing.T, r stdioReply, id string, code int64, want string) {
	t.Helper()
	if r.Error == nil || r.Error.Code != code || string(r.ID) != id || !strings.Contains(r.Error.Message, want) {
		t.Fatalf("got %s\nwant an error %d with id %s and a message containing %q", r.line, code, id, want)
	}
}

// wantHello fails unless r is the template tool's result under id (JSON).
func wantHello(t *testing.T, r stdioReply, id string) {
	t.Helper()
	if r.Error != nil || string(r.ID) != id || !strings.Contains(string(r.Result), "hello world") {
		t.Fatalf("got %s\nwant the hello result with id %s", r.line, id)
	}
}

// TestStdioDuplicateIDs drives the transport as the SDK would, over pipes,
// so that each request's state is under the test's control: an id is in use
// while its request runs and, once cancelled, until its reply is dropped;
// both are refused alike, and each request is answered once.
func TestStdioDuplicateIDs(t *testing.T) {
	for _, id := range []string{`7`, `"abc"`} {
		t.Run(id, func(t *testing.T) {
			conn, p := connectStdio(t)
			ctx := context.Background()
			call := func() string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }
			readCall := func() *jsonrpc.Request {
				t.Helper()
				msg, err := conn.Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				req, ok := msg.(*jsonrpc.Request)
				if !ok || !req.IsCall() || formatID(req.ID) != id {
					t.Fatalf("Read: %#v, want the call %s", msg, id)
				}
				return req
			}
			reply := func(req *jsonrpc.Request, text string) {
				t.Helper()
				if err := conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"text":"` + text + `"}`)}); err != nil {
					t.Fatal(err)
				}
			}
			inUse := "request id " + id + " is still in use"

			// Running: a duplicate is refused.
			p.send(call())
			first := readCall()
			p.send(call())
			wantError(t, p.next(), id, jsonrpc.CodeInvalidRequest, inUse)
			reply(first, "first")
			if r := p.next(); !strings.Contains(string(r.Result), "first") || string(r.ID) != id {
				t.Fatalf("got %s, want the first reply", r.line)
			}

			// Cancelled, still running: refused alike.
			p.send(call())
			second := readCall()
			p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`)
			if _, err := conn.Read(ctx); err != nil { // the cancellation, for the SDK
				t.Fatal(err)
			}
			p.send(call())
			wantError(t, p.next(), id, jsonrpc.CodeInvalidRequest, inUse)

			// The cancelled request's reply is dropped, which frees the id.
			reply(second, "cancelled")
			p.send(call())
			third := readCall()
			reply(third, "third")
			if r := p.next(); !strings.Contains(string(r.Result), "third") || string(r.ID) != id {
				t.Fatalf("got %s, want the third reply (the cancelled one must be dropped)", r.line)
			}
		})
	}
}

// connectStdio connects a StdioTransport over OS pipes and returns the
// connection (the SDK's end) and the client's end.
func connectStdio(t *testing.T) (*stdioConn, *stdioPeer) {
	t.Helper()
	return connectStdioStop(t, nil)
}

// connectStdioStop is connectStdio with the transport's Stop channel.
func connectStdioStop(t *testing.T, stop <-chan struct{}) (*stdioConn, *stdioPeer) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	tr := &StdioTransport{In: inR, Out: outW, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Stop: stop}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := &stdioPeer{t: t, in: inW, lines: make(chan stdioReply, 64)}
	go p.readReplies(outR)
	t.Cleanup(func() {
		inW.Close()
		conn.Close()
		outW.Close()
		outR.Close()
	})
	return conn.(*stdioConn), p
}

// TestStdioRequestIDs: a request id must be a string or an integer the
// reply can echo exactly; anything else is refused with -32600 and id null,
// and the server keeps serving.
func TestStdioRequestIDs(t *testing.T) {
	reg := loadSource(t, stdioIDConfig)
	p := startStdio(t, reg)
	p.initialize()
	for _, tc := range []struct {
		name, id string
		want     string // "" for a pong echoing the id; else part of the -32600 message
	}{
		{"null", `null`, "not null"},
		{"fraction", `1.5`, "not 1.5"},
		{"integral fraction", `2.0`, "not 2.0"},
		{"exponent", `1e2`, "not 1e2"},
		{"overflowing exponent", `1e400`, `"id"`},
		{"beyond int64", `12345678901234567890`, "out of range"},
		{"beyond 2^53", `9007199254740993`, "out of range"},
		{"below -2^53", `-9007199254740993`, "out of range"},
		{"boolean", `true`, `id`},
		{"object", `{"a":1}`, `id`},
		{"integer", `42`, ""},
		{"negative", `-3`, ""},
		{"largest safe", `9007199254740991`, ""},
		{"smallest safe", `-9007199254740991`, ""},
		{"string", `"req-1"`, ""},
		{"numeric string", `"1.5"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.send(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"ping"}`)
			r := p.next()
			if tc.want == "" {
				if r.Error != nil || string(r.ID) != tc.id {
					t.Fatalf("got %s, want a pong with id %s", r.line, tc.id)
				}
			} else {
				wantError(t, r, "null", jsonrpc.CodeInvalidRequest, tc.want)
			}
			p.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			if r := p.next(); string(r.ID) != `"after"` || r.Error != nil {
				t.Fatalf("the next ping got %s", r.line)
			}
		})
	}
}

// TestStdioSecondInitialize: initialize on an initialized session is an
// invalid request, whether it comes after the first was answered or right
// behind it, and the session goes on.
func TestStdioSecondInitialize(t *testing.T) {
	for _, tc := range []struct {
		name     string
		awaitOne bool // read the first reply before sending the second
	}{
		{"after the first reply", true},
		{"right behind the first", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startStdio(t, loadSource(t, stdioIDConfig))
			p.send(initializeLine(1))
			if tc.awaitOne {
				if r := p.next(); r.Error != nil || string(r.ID) != "1" {
					t.Fatalf("first initialize: %s", r.line)
				}
			}
			p.send(initializeLine(2))
			if !tc.awaitOne {
				if r := p.next(); r.Error != nil || string(r.ID) != "1" {
					t.Fatalf("first initialize: %s", r.line)
				}
			}
			wantError(t, p.next(), "2", jsonrpc.CodeInvalidRequest, "session already initialized")
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			p.send(helloLine("3"))
			wantHello(t, p.next(), "3")
		})
	}
}

// TestStdioByteOrderMark: a UTF-8 byte order mark before the first message
// (Windows PowerShell 5 writes one) does not spoil it; one later in the
// stream is an error, as any stray bytes are.
func TestStdioByteOrderMark(t *testing.T) {
	p := startStdio(t, loadSource(t, stdioIDConfig))
	p.send(utf8BOM + initializeLine(1))
	if r := p.next(); r.Error != nil || string(r.ID) != "1" {
		t.Fatalf("initialize after a BOM: %s", r.line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(helloLine("2"))
	wantHello(t, p.next(), "2")
	p.send(utf8BOM + helloLine("3"))
	if r := p.next(); r.Error == nil {
		t.Fatalf("a BOM inside the stream was taken: %s", r.line)
	}
}

// TestStdioCRLF: messages that end in CRLF, as a client on Windows may
// write them, are read as those that end in LF, and answered with LF.
func TestStdioCRLF(t *testing.T) {
	p := startStdio(t, loadSource(t, stdioIDConfig))
	p.send(initializeLine(1) + "\r")
	if r := p.next(); r.Error != nil || string(r.ID) != "1" || strings.HasSuffix(r.line, "\r") {
		t.Fatalf("initialize ended by CRLF: %q", r.line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\r")
	p.send(helloLine("2") + "\r")
	wantHello(t, p.next(), "2")
	p.send(helloLine("3") + "\r\r\n\r")
	wantHello(t, p.next(), "3")
}

// TestLogLevelFromInitialize checks that the default log level applies as
// soon as initialize is answered: a warning sent before the client's
// notifications/initialized reaches it, and an info line does not; a level
// the client sets afterwards still wins.
func TestLogLevelFromInitialize(t *testing.T) {
	p := startStdio(t, loadSource(t, stdioIDConfig))
	p.send(initializeLine(0))
	if r := p.next(); string(r.ID) != "0" || r.Error != nil {
		t.Fatalf("initialize: %s", r.line)
	}
	ctx := context.Background()
	p.srv.Notify(ctx, mcp.LoggingLevel("info"), "too low for the default")
	p.srv.Notify(ctx, mcp.LoggingLevel("warning"), "before initialized")
	if r := p.next(); !strings.Contains(r.line, `"notifications/message"`) || !strings.Contains(r.line, "before initialized") {
		t.Fatalf("got %s, want the warning sent before notifications/initialized", r.line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`)
	if r := p.next(); string(r.ID) != "1" || r.Error != nil {
		t.Fatalf("logging/setLevel: %s", r.line)
	}
	p.srv.Notify(ctx, mcp.LoggingLevel("info"), "after setLevel")
	if r := p.next(); !strings.Contains(r.line, "after setLevel") {
		t.Fatalf("got %s, want the info line the client asked for", r.line)
	}
}

// TestStdioIDReuseAfterReply: a client that has a reply may send its next
// request with the same id at once; the id is free as soon as the reply is
// out, never refused as still in use.
func TestStdioIDReuseAfterReply(t *testing.T) {
	p := startStdio(t, loadSource(t, stdioIDConfig))
	p.initialize()
	for i := range 2000 {
		p.send(`{"jsonrpc":"2.0","id":"same","method":"ping"}`)
		if r := p.next(); string(r.ID) != `"same"` || r.Error != nil {
			t.Fatalf("ping %d: %s", i, r.line)
		}
	}
}

// TestStdioStop: once Stop is closed, a request read after it is answered
// with an error and not handed on, and Read reports the end of the session
// only after the request already handed on is answered.
func TestStdioStop(t *testing.T) {
	stop := make(chan struct{})
	conn, p := connectStdioStop(t, stop)
	ctx := context.Background()
	p.send(helloLine("1"))
	m, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := m.(*jsonrpc.Request)
	close(stop)
	p.send(helloLine("2"))
	wantError(t, p.next(), "2", jsonrpc.CodeInternalError, "toolhost is shutting down; the request was not run")

	read := make(chan error, 1)
	go func() {
		m, err := conn.Read(ctx)
		if err == nil {
			err = fmt.Errorf("read %v after the stop, want io.EOF", m)
		}
		read <- err
	}()
	select {
	case err := <-read:
		t.Fatalf("Read returned (%v) before the request handed on was answered", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := conn.Write(ctx, &jsonrpc.Response{ID: first.ID, Result: json.RawMessage(`{"content":[{"type":"text","text":"hello world"}]}`)}); err != nil {
		t.Fatal(err)
	}
	wantHello(t, p.next(), "1")
	select {
	case err := <-read:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("Read after the answer: %v, want io.EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read did not report the end after the last answer")
	}
}
