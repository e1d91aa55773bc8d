package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

var httpTestConfig = `
server {
  name    = "http-test"
  version = "1.0.0"
}
tool "say_hello" {
  description = "Returns a friendly greeting"
  param "name" {
    type        = string
    description = "The name to greet"
  }
  template { text = "hello ${param.name}" }
}
tool "slow" {
  description = "sleeps, then answers"
  param "seconds" {
    type    = number
    default = 1
  }
  exec {
    ` + helperCommand(`"sleep"`, `param.seconds`, `"print"`, `"slept"`) + `
    timeout = "60s"
  }
}
`

// httpLog is a goroutine-safe log buffer.
type httpLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *httpLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *httpLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// httpEnv is an HTTPServer serving httpTestConfig (or another config) on a
// real loopback listener.
type httpEnv struct {
	t      *testing.T
	srv    *Server
	hs     *HTTPServer
	base   string // http://127.0.0.1:PORT
	log    *httpLog
	cancel context.CancelFunc
	done   chan error
}

func loadHTTPRegistry(t *testing.T, src string) *Registry {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, diags := Load([]string{p}, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return reg
}

func startHTTP(t *testing.T, opts HTTPOptions) *httpEnv {
	t.Helper()
	return startHTTPConfig(t, opts, httpTestConfig)
}

// startHTTPConfig is startHTTP serving the config src, the server made
// with sopts.
func startHTTPConfig(t *testing.T, opts HTTPOptions, src string, sopts ...ServerOption) *httpEnv {
	t.Helper()
	return startHTTPRegistry(t, opts, loadHTTPRegistry(t, src), sopts...)
}

// startHTTPRegistry is startHTTP serving reg, the server made with sopts.
func startHTTPRegistry(t *testing.T, opts HTTPOptions, reg *Registry, sopts ...ServerOption) *httpEnv {
	t.Helper()
	log := &httpLog{}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := NewServer(reg, logger, sopts...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.Addr = ln.Addr().String()
	opts.Logger = logger
	hs, err := NewHTTPServer(srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &httpEnv{t: t, srv: srv, hs: hs, base: "http://" + ln.Addr().String(), log: log, cancel: cancel, done: make(chan error, 1)}
	go func() { e.done <- hs.Serve(ctx, ln) }()
	t.Cleanup(func() {
		e.stop()
		srv.Registry().Retire()
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	return e
}

// stop shuts the server down and returns what Serve returned.
func (e *httpEnv) stop() error {
	e.cancel()
	err, ok := <-e.done
	if ok {
		close(e.done)
	}
	return err
}

// connect connects an SDK client over streamable HTTP. With no sessOpts,
// on a server that keeps sessions, it speaks sessionProtocol, so that it
// gets a session; TestHTTPSessionlessBesideSessions connects there with
// the client's own default.
func (e *httpEnv) connect(opts *mcp.ClientOptions, sessOpts *mcp.ClientSessionOptions) *mcp.ClientSession {
	e.t.Helper()
	if sessOpts == nil && !e.hs.opts.Stateless {
		sessOpts = &mcp.ClientSessionOptions{ProtocolVersion: sessionProtocol}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp"}, sessOpts)
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	e.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// sessionProtocol is the latest protocol version with sessions: the
// version the tests of sessions speak.
const sessionProtocol = "2025-11-25"

// connectSSE connects an SDK client over the legacy SSE transport.
func (e *httpEnv) connectSSE(opts *mcp.ClientOptions) *mcp.ClientSession {
	e.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-sse", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: e.base + "/sse"}, nil)
	if err != nil {
		e.t.Fatalf("connect over SSE: %v", err)
	}
	e.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if res.IsError || len(res.Content) == 0 {
		// The text comes last on the line: CI's wine leg looks for a
		// failure ending in wine's "Internal error." to rerun a package.
		t.Fatalf("call %s: isError=%v, %d content items: %s", name, res.IsError, len(res.Content), testconfig.ResultText(res))
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// rawPost posts a JSON body with the headers a streamable client sends.
func rawPost(t *testing.T, url, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// rawDelete sends DELETE /mcp with headers hdr: the end of a session.
func rawDelete(t *testing.T, e *httpEnv, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, e.base+"/mcp", nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// rawGet sends GET /mcp with headers hdr, accepting an event stream: a
// session's stream, or with Last-Event-ID the resumption of one.
func rawGet(t *testing.T, e *httpEnv, hdr map[string]string) *http.Response {
	t.Helper()
	return rawRequest(t, e, http.MethodGet, map[string]string{"Accept": "text/event-stream"}, hdr)
}

// rawRequest sends a request without a body to /mcp with the headers of
// each map in turn, a later one winning.
func rawRequest(t *testing.T, e *httpEnv, method string, hdrs ...map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, e.base+"/mcp", nil)
	for _, hdr := range hdrs {
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name, id, data string
}

// sseReader reads events off a stream, skipping comments.
type sseReader struct {
	sc       *bufio.Scanner
	comments int
}

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &sseReader{sc: sc}
}

func (r *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case line == "":
			if ev.name != "" || ev.id != "" || ev.data != "" {
				return ev, nil
			}
		case strings.HasPrefix(line, ":"):
			r.comments++
		case strings.HasPrefix(line, "event:"):
			ev.name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "id:"):
			ev.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			ev.data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		}
	}
	if err := r.sc.Err(); err != nil {
		return ev, err
	}
	return ev, io.EOF
}

// message reads events until a "message" event, decoded.
func (r *sseReader) message(t *testing.T) map[string]any {
	t.Helper()
	for {
		ev, err := r.next()
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		if ev.name != "message" && ev.name != "" {
			continue
		}
		m := map[string]any{}
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
			t.Fatalf("event data is not JSON: %q", ev.data)
		}
		return m
	}
}

func TestNormalizeListenAddr(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "8080", want: "127.0.0.1:8080"},
		{in: ":8080", want: "127.0.0.1:8080"},
		{in: "127.0.0.1:0", want: "127.0.0.1:0"},
		{in: "0.0.0.0:8080", want: "0.0.0.0:8080"},
		{in: "[::1]:9000", want: "[::1]:9000"},
		{in: "localhost:80", want: "localhost:80"},
		{in: "", err: "empty address"},
		{in: "localhost", err: "not HOST:PORT"},
		{in: "host:http", err: "no valid port"},
		{in: "host:70000", err: "no valid port"},
		{in: "::1:8080", err: "write an IPv6 address in brackets, followed by the port, as in [::1]:8080"},
		{in: "::1", err: "in brackets"},
		{in: "http://127.0.0.1:8080", err: "is a URL: give only HOST:PORT"},
		{in: "http://127.0.0.1:8080/mcp", err: "is a URL"},
		{in: "http://localhost", err: "is a URL"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeListenAddr(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("NormalizeListenAddr(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("NormalizeListenAddr(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestHTTPGracefulShutdown: a shutdown lets the call in flight finish and
// answers it, and the long-lived streams (the streamable client's GET, an
// SSE stream) end with their sessions instead of holding it up until the
// deadline.
func TestHTTPGracefulShutdown(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			e := startHTTP(t, HTTPOptions{Stateless: stateless, ShutdownTimeout: time.Minute})
			cs := e.connect(nil, nil)
			sse := e.connectSSE(nil)
			if got := callText(t, sse, "say_hello", map[string]any{"name": "sse"}); got != "hello sse" {
				t.Fatalf("say_hello = %q", got)
			}
			type result struct {
				res *mcp.CallToolResult
				err error
			}
			got := make(chan result, 2)
			for _, c := range []*mcp.ClientSession{cs, sse} {
				go func() {
					res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 1}})
					got <- result{res, err}
				}()
			}
			testconfig.WaitFor(t, "both calls are in flight", func() bool { return e.hs.InFlight() == 2 })
			if err := e.stop(); err != nil {
				t.Fatalf("Serve: %v", err)
			}
			for range 2 {
				r := <-got
				if r.err != nil || r.res.IsError || r.res.Content[0].(*mcp.TextContent).Text != "slept" {
					t.Fatalf("call in flight during shutdown: %+v, %v", r.res, r.err)
				}
			}
			if strings.Contains(e.log.String(), "shutdown timeout reached") {
				t.Fatal("shutdown waited for its deadline")
			}
			// Nothing listens any more.
			if _, err := http.Get(e.base + "/healthz"); err == nil {
				t.Fatal("the server still answers after shutdown")
			}
		})
	}
}

// TestHTTPShutdownDeadline: a call still running at the deadline is
// cancelled (its process killed), its client gets an answer saying why,
// and Serve returns.
func TestHTTPShutdownDeadline(t *testing.T) {
	e := startHTTP(t, HTTPOptions{ShutdownTimeout: 200 * time.Millisecond})
	cs := e.connect(nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	got := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 30}})
		got <- answer{res, err}
	}()
	testconfig.WaitFor(t, "the call is in flight", func() bool { return e.hs.InFlight() == 1 })
	if err := e.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if !strings.Contains(e.log.String(), "shutdown timeout reached") {
		t.Fatal("no log of the deadline")
	}
	// The 30 s sleep was killed: the handler has returned.
	testconfig.WaitFor(t, "the cancelled call returns", func() bool { return e.hs.InFlight() == 0 })
	a := <-got
	if a.err != nil {
		t.Fatalf("the call cancelled at the deadline got no answer: %v", a.err)
	}
	if !a.res.IsError || len(a.res.Content) == 0 {
		t.Fatalf("answer %+v, want an error result", a.res)
	}
	text := a.res.Content[0].(*mcp.TextContent).Text
	for _, want := range []string{"shutting down", "--shutdown-timeout (200ms)"} {
		if !strings.Contains(text, want) {
			t.Fatalf("answer %q, want it to contain %q", text, want)
		}
	}
}

// TestHTTPRequestTimeout: a request running past --request-timeout is
// cancelled and answered with an error.
func TestHTTPRequestTimeout(t *testing.T) {
	e := startHTTP(t, HTTPOptions{RequestTimeout: 300 * time.Millisecond})
	cs := e.connect(nil, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 30}})
	if err == nil && !res.IsError {
		t.Fatalf("a 30 s call under a 300 ms request timeout succeeded: %+v", res)
	}
	if err == nil && !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "request timeout (300ms) and was stopped; the server's operator can raise it with --request-timeout") {
		t.Fatalf("answer %q; want it to name the request timeout", res.Content[0].(*mcp.TextContent).Text)
	}
	// Short calls are not affected.
	if got := callText(t, cs, "say_hello", map[string]any{"name": "quick"}); got != "hello quick" {
		t.Fatalf("say_hello = %q", got)
	}
}

// TestHTTPReloadReachesClients: a reload's list_changed notification
// reaches every connected client: a streamable session and an SSE session
// at once, and in stateless mode, two 2026-07-28 clients through their
// subscriptions/listen streams.
func TestHTTPReloadReachesClients(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			e := startHTTP(t, HTTPOptions{Stateless: stateless})
			var clients []*mcp.ClientSession
			var notified []chan struct{}
			opts := func() *mcp.ClientOptions {
				ch := make(chan struct{}, 10)
				notified = append(notified, ch)
				return &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ch <- struct{}{} }}
			}
			clients = append(clients, e.connect(opts(), nil))
			if stateless {
				clients = append(clients, e.connect(opts(), nil))
			} else {
				clients = append(clients, e.connectSSE(opts()))
			}
			for _, cs := range clients {
				callText(t, cs, "say_hello", map[string]any{"name": "before"})
			}

			reg := loadHTTPRegistry(t, httpTestConfig+`
tool "added" {
  description = "new after the reload"
  template { text = "added" }
}
`)
			old, ch := e.srv.Apply(reg)
			old.Retire()
			if len(ch.ToolsAdded) != 1 {
				t.Fatalf("changes: %+v", ch)
			}
			for i, n := range notified {
				select {
				case <-n:
				case <-time.After(15 * time.Second):
					t.Fatalf("client %d got no tools/list_changed", i)
				}
			}
			for _, cs := range clients {
				if got := callText(t, cs, "added", nil); got != "added" {
					t.Fatalf("added = %q", got)
				}
			}
		})
	}
}

// TestHTTPReady: /readyz says ready with the config's counts, and 503 once
// a shutdown started; /healthz stays ok.
func TestHTTPReady(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Host = strings.TrimPrefix(e.base, "http://")
		e.hs.Handler().ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	code, body := get("/readyz")
	var st readyStatus
	if err := json.Unmarshal([]byte(body), &st); err != nil || code != 200 || st.Status != "ready" || st.Tools != 2 || st.Server != "http-test" {
		t.Fatalf("/readyz: %d %s", code, body)
	}
	if strings.Contains(body, "tools.hcl") || strings.Contains(body, string(filepath.Separator)+"tmp") {
		t.Errorf("/readyz, served without a token, shows a file path: %s", body)
	}
	e.hs.shutting.Store(true)
	if code, body := get("/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
		t.Fatalf("/readyz during shutdown: %d %s", code, body)
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	if code, _ := get("/sse"); code != http.StatusServiceUnavailable {
		t.Fatalf("new SSE stream during shutdown: %d, want 503", code)
	}
}

// httpFeatureConfig has the tools of the cancellation, logging, session
// and confirmation tests.
var httpFeatureConfig = `
server {
  name    = "http-features"
  version = "1.0.0"
}
tool "marker" {
  description = "touches DIR/started, sleeps, then touches DIR/marker"
  param "dir" {
    type = string
  }
  exec {
    ` + helperCommand(`"touch"`, `"${param.dir}/started"`, `"sleep"`, `"30"`, `"touch"`, `"${param.dir}/marker"`, `"echo"`, `"finished"`) + `
    timeout = "60s"
  }
}
tool "quick" {
  description = "answers at once"
  template { text = "quick" }
}
tool "info_log" {
  description = "logs a line at info"
  exec {
    ` + helperCommand(`"stderr"`, `"info-line"`, `"echo"`, `"out"`) + `
    stderr_log = "info"
  }
}
tool "warning_log" {
  description = "logs a line at warning"
  exec {
    ` + helperCommand(`"stderr"`, `"warning-line"`, `"echo"`, `"out"`) + `
    stderr_log = "warning"
  }
}
tool "delete_file" {
  description = "asks before it runs"
  confirm     = "Delete it?"
  template { text = "deleted" }
}
tool "delete_allowed" {
  description      = "asks when it can, runs when it cannot"
  confirm          = "Go on?"
  confirm_fallback = "allow"
  template { text = "ran" }
}
tool "book" {
  description = "asks the user a form"
  ask {
    message = "When?"
    field "time" {
      type = string
    }
  }
  template { text = "at ${answer.time}" }
}
`

// rawSession initializes a streamable HTTP session by hand and returns the
// headers its requests carry.
func rawSession(t *testing.T, e *httpEnv, version string) map[string]string {
	t.Helper()
	resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s, Mcp-Session-Id %q", resp.Status, sid)
	}
	newSSEReader(resp.Body).message(t)
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": version}
	if resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %s, want 202", resp.Status)
	}
	return hdr
}

// openSSE opens a legacy SSE session by hand: GET /sse, its endpoint
// event. It returns the stream and a function that POSTs a message to the
// session's endpoint and checks the 202.
func openSSE(t *testing.T, e *httpEnv) (*sseReader, func(body string)) {
	t.Helper()
	c := openSSEEndpoint(t, e)
	return c.r, func(body string) {
		t.Helper()
		postSSE(t, c.url, body)
	}
}

// initializeSSE runs the handshake of a session that openSSE opened.
func initializeSSE(t *testing.T, r *sseReader, post func(string)) {
	t.Helper()
	post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	r.message(t)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// readAllEvents reads a stream's events until it ends, failing when it
// does not end within the deadline.
func readAllEvents(t *testing.T, body io.Reader) []sseEvent {
	t.Helper()
	type result struct {
		evs []sseEvent
		err error
	}
	done := make(chan result, 1)
	go func() {
		r := newSSEReader(body)
		var evs []sseEvent
		for {
			ev, err := r.next()
			if err == io.EOF {
				done <- result{evs, nil}
				return
			}
			if err != nil {
				done <- result{evs, err}
				return
			}
			evs = append(evs, ev)
		}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			t.Fatalf("reading the stream: %v", res.err)
		}
		return res.evs
	case <-time.After(15 * time.Second):
		t.Fatal("the stream did not end")
		return nil
	}
}

// answers returns the JSON-RPC responses among events, by id.
func answers(t *testing.T, evs []sseEvent) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, ev := range evs {
		if ev.data == "" || (ev.name != "" && ev.name != "message") {
			continue
		}
		m := map[string]any{}
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
			t.Fatalf("event data is not JSON: %q", ev.data)
		}
		if _, isCall := m["method"]; !isCall && m["id"] != nil {
			out[fmt.Sprint(m["id"])] = m
		}
	}
	return out
}

// waitForFile waits until path exists.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	testconfig.WaitFor(t, path+" exists", func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// TestHTTPServerInfoAfterReload: after a reload renames the server, a
// 2026-07-28 client is told the new identity in each result's _meta (the
// SDK fills it from the start's), as an older client is in initialize;
// the result of a call stopped by the request timeout too.
func TestHTTPServerInfoAfterReload(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true, RequestTimeout: 300 * time.Millisecond}, strings.Replace(httpTestConfig, `name    = "http-test"`, `name    = "one"`, 1))
	renamed := loadHTTPRegistry(t, strings.Replace(httpTestConfig, `name    = "http-test"`, `name    = "two"`, 1))
	old, _ := e.srv.Apply(renamed)
	old.Retire()
	cs := e.connect(nil, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Meta[mcp.MetaKeyServerInfo])
	if !strings.Contains(string(b), `"name":"two"`) {
		t.Fatalf("tools/list _meta serverInfo = %s, want the name in service, two", b)
	}
	if got := callText(t, cs, "say_hello", map[string]any{"name": "x"}); got != "hello x" {
		t.Fatalf("say_hello = %q", got)
	}
	slow, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 5}})
	if err != nil || !slow.IsError {
		t.Fatalf("slow past the request timeout: %+v, %v", slow, err)
	}
	b, _ = json.Marshal(slow.Meta[mcp.MetaKeyServerInfo])
	if !strings.Contains(string(b), `"name":"two"`) {
		t.Fatalf("timed-out tools/call _meta serverInfo = %s, want two", b)
	}
}

// forEachMode runs f against a server with sessions (hdr names an
// initialized session) and a stateless one (hdr names the protocol).
func forEachMode(t *testing.T, f func(t *testing.T, e *httpEnv, hdr map[string]string)) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			e := startHTTP(t, HTTPOptions{Stateless: stateless})
			hdr := map[string]string{"Mcp-Protocol-Version": "2025-06-18"}
			if !stateless {
				hdr = rawSession(t, e, "2025-06-18")
			}
			f(t, e, hdr)
		})
	}
}

// TestHTTPWildcardListenLog: listening on every interface, the log gives
// URLs a local client can use (127.0.0.1, not 0.0.0.0) and, unless
// --allowed-hosts names some, warns that other machines' Host headers will
// be refused.
func TestHTTPWildcardListenLog(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hosts []string
		warn  bool
	}{
		{"no allowed hosts", nil, true},
		{"allowed hosts", []string{"mcp.example.com"}, false},
		{"any host", []string{"*"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := loadHTTPRegistry(t, httpTestConfig)
			log := &httpLog{}
			logger := slog.New(slog.NewTextHandler(log, nil))
			srv := NewServer(reg, logger)
			defer srv.Registry().Retire()
			ln, err := net.Listen("tcp", "0.0.0.0:0")
			if err != nil {
				t.Fatal(err)
			}
			_, port, _ := net.SplitHostPort(ln.Addr().String())
			hs, err := NewHTTPServer(srv, HTTPOptions{Addr: ln.Addr().String(), Logger: logger, AllowedHosts: tc.hosts})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- hs.Serve(ctx, ln) }()
			testconfig.WaitFor(t, "the start is logged", func() bool { return strings.Contains(log.String(), "serving over HTTP") })
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			got := log.String()
			if want := "mcp=http://127.0.0.1:" + port + "/mcp"; !strings.Contains(got, want) {
				t.Errorf("log lacks %q:\n%s", want, got)
			}
			if warned := strings.Contains(got, "with --allowed-hosts"); warned != tc.warn {
				t.Errorf("warned about --allowed-hosts: %v, want %v:\n%s", warned, tc.warn, got)
			}
		})
	}
}

// openGET opens the standalone GET stream of a streamable HTTP session.
// Until the server has seen the session's last one close, it answers 409:
// openGET tries again for a while.
func openGET(t *testing.T, e *httpEnv, hdr map[string]string) (*sseReader, func()) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp := rawGet(t, e, hdr)
		if resp.StatusCode == http.StatusOK {
			return newSSEReader(resp.Body), func() { resp.Body.Close() }
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusConflict || time.Now().After(deadline) {
			t.Fatalf("GET /mcp: %s: %s", resp.Status, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// nextMessage reads a stream's next message event, or fails after 10 s.
func nextMessage(t *testing.T, r *sseReader) sseEvent {
	t.Helper()
	got := make(chan sseEvent, 1)
	go func() {
		for {
			ev, err := r.next()
			if err != nil || ev.name == "message" || ev.name == "" {
				got <- ev
				return
			}
		}
	}()
	select {
	case ev := <-got:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event on the stream")
		return sseEvent{}
	}
}

// addToolByReload reloads e's server with one more tool, named by n:
// clients get notifications/tools/list_changed.
func addToolByReload(t *testing.T, e *httpEnv, n int) {
	t.Helper()
	reg := loadHTTPRegistry(t, httpTestConfig+fmt.Sprintf(`
tool "added%d" {
  description = "new after reload %d"
  template { text = "added" }
}
`, n, n))
	old, _ := e.srv.Apply(reg)
	old.Retire()
}
