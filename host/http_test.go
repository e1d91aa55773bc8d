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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const httpTestConfig = `
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
    command = ["sh", "-c", "sleep \"$1\"; printf slept", "slow", param.seconds]
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

// startHTTPConfig is startHTTP serving the config src.
func startHTTPConfig(t *testing.T, opts HTTPOptions, src string) *httpEnv {
	t.Helper()
	reg := loadHTTPRegistry(t, src)
	log := &httpLog{}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := NewServer(reg, logger)
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

// connect connects an SDK client over streamable HTTP.
func (e *httpEnv) connect(opts *mcp.ClientOptions, sessOpts *mcp.ClientSessionOptions) *mcp.ClientSession {
	e.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp"}, sessOpts)
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	e.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

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
		t.Fatalf("call %s: %+v", name, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// waitUntil polls cond until it holds, failing after a deadline.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
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

func TestOriginPolicy(t *testing.T) {
	p, err := newOriginPolicy("0.0.0.0:8080", []string{"mcp.example.com", "proxy.internal:9443", "tls.example.com:443"}, []string{"https://app.example.com/", "http://dev.example.com:80", "https://ui.example.com:443"})
	if err != nil {
		t.Fatal(err)
	}
	hosts := []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"localhost:8080", true},
		{"LOCALHOST:8080", true},
		{"[::1]:8080", true},
		{"localhost:9090", false}, // another port: another server
		{"0.0.0.0:8080", false},   // the wildcard is no name
		{"mcp.example.com", true}, // no port: any
		{"mcp.example.com:443", true},
		{"proxy.internal:9443", true},
		{"proxy.internal:9444", false},
		// A client omits the default port of its scheme (RFC 9110 7.2),
		// which the Host does not name: 80 or 443.
		{"tls.example.com", true},
		{"tls.example.com:443", true},
		{"tls.example.com:8443", false},
		{"evil.example.com:8080", false},
		{"evil.example.com", false},
	}
	for _, tt := range hosts {
		t.Run("host "+tt.host, func(t *testing.T) {
			if got := p.hostAllowed(tt.host); got != tt.ok {
				t.Fatalf("hostAllowed(%q) = %v, want %v", tt.host, got, tt.ok)
			}
		})
	}
	origins := []struct {
		origin string
		ok     bool
	}{
		{"http://localhost:8080", true},
		{"http://127.0.0.1:8080", true},
		{"https://app.example.com", true},
		{"HTTPS://APP.EXAMPLE.COM", true},
		{"https://mcp.example.com", true}, // an allowed host's own pages
		// Browsers leave the scheme's default port out of Origin: an
		// origin allowed with it is the same origin.
		{"http://dev.example.com", true},
		{"http://dev.example.com:80", true},
		{"https://dev.example.com", false},
		{"https://ui.example.com", true},
		{"http://ui.example.com", false},
		{"https://tls.example.com", true},
		{"http://localhost:3000", false},
		{"http://evil.example.com", false},
		{"null", false},
		{"file://", false},
		{"https://app.example.com.evil.com", false},
	}
	for _, tt := range origins {
		t.Run("origin "+tt.origin, func(t *testing.T) {
			if got := p.originAllowed(tt.origin); got != tt.ok {
				t.Fatalf("originAllowed(%q) = %v, want %v", tt.origin, got, tt.ok)
			}
		})
	}

	bad := []struct {
		hosts, origins []string
		err            string
	}{
		{hosts: []string{"https://mcp.example.com"}, err: "--allowed-hosts"},
		{origins: []string{"app.example.com"}, err: "--allowed-origins"},
		{origins: []string{"https://app.example.com/path"}, err: "--allowed-origins"},
		// A pattern would be taken as a name that nothing matches.
		{hosts: []string{"*.example.com"}, err: `--allowed-hosts "*.example.com": patterns are not supported`},
		{origins: []string{"https://*.example.com"}, err: `--allowed-origins "https://*.example.com": patterns are not supported`},
		{hosts: []string{"mcp.example.com:https"}, err: "the port is not a number"},
	}
	for _, tt := range bad {
		t.Run("invalid "+tt.err, func(t *testing.T) {
			opts := HTTPOptions{Addr: "127.0.0.1:8080", AllowedHosts: tt.hosts, AllowedOrigins: tt.origins}
			if err := opts.Validate(); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Validate() = %v, want an error naming %s", err, tt.err)
			}
		})
	}
	t.Run("wildcards", func(t *testing.T) {
		p, err := newOriginPolicy("127.0.0.1:8080", []string{"*"}, []string{"*"})
		if err != nil {
			t.Fatal(err)
		}
		if !p.hostAllowed("anything:1") || !p.originAllowed("https://anything") {
			t.Fatal("* should allow any host and origin")
		}
	})
}

// TestHTTPSessions: streamable HTTP with sessions: each client gets its own
// Mcp-Session-Id, calls work, and DELETE ends the session.
func TestHTTPSessions(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	a := e.connect(nil, nil)
	b := e.connect(nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if a.ID() == "" || b.ID() == "" || a.ID() == b.ID() {
		t.Fatalf("session IDs %q and %q: want two distinct non-empty IDs", a.ID(), b.ID())
	}
	if got := callText(t, a, "say_hello", map[string]any{"name": "world"}); got != "hello world" {
		t.Fatalf("say_hello = %q", got)
	}
	if got := callText(t, b, "say_hello", map[string]any{"name": "b"}); got != "hello b" {
		t.Fatalf("say_hello = %q", got)
	}

	// A raw client: initialize, then requests with the header, 202 for a
	// notification, 404 for an unknown session.
	resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s, Mcp-Session-Id %q", resp.Status, sid)
	}
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"}
	if resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notification: %s, want 202", resp.Status)
	}
	resp = rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"raw"}}}`, hdr)
	m := newSSEReader(resp.Body).message(t)
	if !strings.Contains(fmt.Sprint(m["result"]), "hello raw") {
		t.Fatalf("tools/call reply: %v", m)
	}
	if resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": "nope"}); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown session: %s, want 404", resp.Status)
	}
	if dresp := rawDelete(t, e, map[string]string{"Mcp-Session-Id": sid}); dresp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", dresp.Status)
	}
	if resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, hdr); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("after DELETE: %s, want 404", resp.Status)
	}
}

// TestHTTPStateless: no session IDs, every request stands alone (any
// replica can answer it), for both the 2026-07-28 protocol and older ones.
func TestHTTPStateless(t *testing.T) {
	e := startHTTP(t, HTTPOptions{Stateless: true})

	t.Run("2026-07-28 client", func(t *testing.T) {
		cs := e.connect(nil, nil)
		if cs.ID() != "" {
			t.Fatalf("session ID %q in stateless mode", cs.ID())
		}
		if got := callText(t, cs, "say_hello", map[string]any{"name": "stateless"}); got != "hello stateless" {
			t.Fatalf("say_hello = %q", got)
		}
	})
	t.Run("2025-06-18 client", func(t *testing.T) {
		cs := e.connect(nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if got := callText(t, cs, "say_hello", map[string]any{"name": "old"}); got != "hello old" {
			t.Fatalf("say_hello = %q", got)
		}
		// No notification can reach it between requests: initialize
		// promises none.
		caps := cs.InitializeResult().Capabilities
		if caps.Tools == nil || caps.Tools.ListChanged || caps.Resources == nil || caps.Resources.ListChanged || caps.Resources.Subscribe || caps.Prompts == nil || caps.Prompts.ListChanged {
			b, _ := json.Marshal(caps)
			t.Fatalf("capabilities %s promise notifications a stateless server cannot send", b)
		}
	})
	t.Run("raw requests without initialize", func(t *testing.T) {
		resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"any replica"}}}`,
			map[string]string{"Mcp-Protocol-Version": "2025-06-18"})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("%s, Mcp-Session-Id %q", resp.Status, resp.Header.Get("Mcp-Session-Id"))
		}
		if m := newSSEReader(resp.Body).message(t); !strings.Contains(fmt.Sprint(m["result"]), "hello any replica") {
			t.Fatalf("reply: %v", m)
		}
		if gresp := rawGet(t, e, nil); gresp.StatusCode != http.StatusMethodNotAllowed {
			t.Fatalf("GET in stateless mode: %s, want 405", gresp.Status)
		}
	})
}

// TestHTTPSSESeedFlow replays the SSE walkthrough of the seed exactly:
// GET /sse, the endpoint event, POSTs to /messages/?session_id=... with
// 202, and the replies as "message" events on the stream.
func TestHTTPSSESeedFlow(t *testing.T) {
	e := startHTTP(t, HTTPOptions{SSEKeepAlive: 20 * time.Millisecond})
	resp, err := http.Get(e.base + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("GET /sse: %s, Content-Type %q", resp.Status, ct)
	}
	r := newSSEReader(resp.Body)
	ev, err := r.next()
	if err != nil || ev.name != "endpoint" || !strings.HasPrefix(ev.data, "/messages?session_id=") {
		t.Fatalf("first event: %+v, %v; want event: endpoint, data: /messages?session_id=...", ev, err)
	}
	sid := strings.TrimPrefix(ev.data, "/messages?session_id=")
	post := func(path, body string) {
		t.Helper()
		resp := rawPost(t, e.base+path, body, nil)
		if resp.StatusCode != http.StatusAccepted {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("POST %s: %s %s", path, resp.Status, b)
		}
	}

	post("/messages/?session_id="+sid, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"mcp","version":"0.1.0"},"protocolVersion":"2024-11-05"}}`)
	m := r.message(t)
	res, _ := m["result"].(map[string]any)
	if m["id"] != float64(0) || res["protocolVersion"] != "2024-11-05" || res["serverInfo"].(map[string]any)["name"] != "http-test" {
		t.Fatalf("initialize reply: %v", m)
	}
	post("/messages/?session_id="+sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post("/messages/?session_id="+sid, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	m = r.message(t)
	if m["id"] != float64(1) || !strings.Contains(fmt.Sprint(m["result"]), "say_hello") {
		t.Fatalf("tools/list reply: %v", m)
	}
	post("/messages/?session_id="+sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"world"}}}`)
	m = r.message(t)
	want := `{"content":[{"text":"hello world","type":"text"}]}`
	if got, _ := json.Marshal(m["result"]); m["id"] != float64(2) || string(got) != want {
		t.Fatalf("tools/call reply: %s, want %s", got, want)
	}
	// The other spellings of the endpoint.
	for i, path := range []string{"/messages?session_id=", "/messages?sessionid=", "/messages/?sessionId="} {
		post(path+sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 10+i))
		if m := r.message(t); m["id"] != float64(10+i) {
			t.Fatalf("%s: reply %v", path, m)
		}
	}
	waitUntil(t, "a keep-alive comment on the stream", func() bool {
		post("/messages?session_id="+sid, `{"jsonrpc":"2.0","id":99,"method":"ping"}`)
		r.message(t)
		return r.comments > 0
	})

	errs := []struct {
		name, path, contentType string
		code                    int
	}{
		{"unknown session", "/messages?session_id=nope", "application/json", http.StatusNotFound},
		{"no session", "/messages", "application/json", http.StatusBadRequest},
		{"not JSON", "/messages?session_id=" + sid, "text/plain", http.StatusUnsupportedMediaType},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(e.base+tt.path, tt.contentType, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"ping"}`))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.code {
				t.Fatalf("%s: %s %s, want %d", tt.path, resp.Status, b, tt.code)
			}
		})
	}

	t.Run("SDK SSE client", func(t *testing.T) {
		cs := e.connectSSE(nil)
		if got := callText(t, cs, "say_hello", map[string]any{"name": "sse"}); got != "hello sse" {
			t.Fatalf("say_hello = %q", got)
		}
	})
}

// TestHTTPGuard: Host, Origin and bearer token checks on every MCP
// endpoint, none on the health endpoints, CORS for allowed origins, and an
// access log line per request that never holds the token.
func TestHTTPGuard(t *testing.T) {
	const token = "s3cret-t0ken"
	e := startHTTP(t, HTTPOptions{
		AuthToken:      token,
		AllowedHosts:   []string{"mcp.example.com"},
		AllowedOrigins: []string{"https://app.example.com"},
	})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(e.base, "http://"))
	initBody := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	auth := "Bearer " + token
	tests := []struct {
		name   string
		method string
		path   string
		hdr    map[string]string
		code   int
		body   string // in the response
	}{
		{"bad host", "POST", "/mcp", map[string]string{"Host": "evil.example.com:" + port, "Authorization": auth}, 403, "--allowed-hosts evil.example.com"},
		{"bad host, sse", "GET", "/sse", map[string]string{"Host": "evil.example.com"}, 403, "not allowed"},
		{"bad host, messages", "POST", "/messages?session_id=x", map[string]string{"Host": "evil.example.com"}, 403, "not allowed"},
		{"bad origin", "POST", "/mcp", map[string]string{"Origin": "http://evil.example.com", "Authorization": auth}, 403, "--allowed-origins http://evil.example.com"},
		{"null origin", "POST", "/mcp", map[string]string{"Origin": "null", "Authorization": auth}, 403, "serve the page from an http(s) origin"},
		{"bad origin, sse", "GET", "/sse", map[string]string{"Origin": "http://evil.example.com", "Authorization": auth}, 403, "not allowed"},
		{"no token", "POST", "/mcp", nil, 401, "Authorization: Bearer"},
		{"no token, sse", "GET", "/sse", nil, 401, "Authorization: Bearer"},
		{"no token, messages", "POST", "/messages?session_id=x", nil, 401, "Authorization: Bearer"},
		{"wrong token", "POST", "/mcp", map[string]string{"Authorization": "Bearer nope"}, 401, "not the one"},
		{"wrong scheme", "POST", "/mcp", map[string]string{"Authorization": "Basic " + token}, 401, "Authorization: Bearer"},
		{"token without scheme", "POST", "/mcp", map[string]string{"Authorization": token}, 401, "has no scheme: send the token as Authorization: Bearer TOKEN"},
		{"empty bearer token", "POST", "/mcp", map[string]string{"Authorization": "Bearer "}, 401, "no token after Bearer"},
		{"token", "POST", "/mcp", map[string]string{"Authorization": auth}, 200, ""},
		{"token, lower-case scheme", "POST", "/mcp", map[string]string{"Authorization": "bearer " + token}, 200, ""},
		{"own origin", "POST", "/mcp", map[string]string{"Authorization": auth, "Origin": "http://127.0.0.1:" + port}, 200, ""},
		{"allowed origin", "POST", "/mcp", map[string]string{"Authorization": auth, "Origin": "https://app.example.com"}, 200, ""},
		{"allowed host", "POST", "/mcp", map[string]string{"Authorization": auth, "Host": "mcp.example.com"}, 200, ""},
		{"preflight", "OPTIONS", "/mcp", map[string]string{"Origin": "https://app.example.com", "Access-Control-Request-Method": "POST"}, 204, ""},
		{"healthz needs nothing", "GET", "/healthz", map[string]string{"Host": "10.1.2.3:" + port}, 200, "ok"},
		{"readyz needs nothing", "GET", "/readyz", map[string]string{"Host": "10.1.2.3:" + port}, 200, `"status":"ready"`},
		{"unknown path", "GET", "/nope", nil, 404, "/mcp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.method == "POST" {
				body = strings.NewReader(initBody)
			}
			// A deadline, so that a regression that lets a stream (GET
			// /sse) through fails the test instead of hanging it.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, tt.method, e.base+tt.path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.hdr {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			if resp.StatusCode != tt.code || !strings.Contains(string(b), tt.body) {
				t.Fatalf("%s %s: %s %q, want %d with %q", tt.method, tt.path, resp.Status, b, tt.code, tt.body)
			}
			switch tt.code {
			case 401:
				if strings.Contains(string(b), token) {
					t.Fatalf("the answer repeats the token: %q", b)
				}
				got := resp.Header.Get("WWW-Authenticate")
				if !strings.HasPrefix(got, `Bearer realm="toolhost"`) {
					t.Fatalf("WWW-Authenticate %q", got)
				}
				// RFC 6750 3.1: an error code only when a bearer token
				// was sent; none for no credentials or another scheme.
				f := strings.Fields(tt.hdr["Authorization"])
				sentBearer := len(f) == 2 && strings.EqualFold(f[0], "bearer")
				if strings.Contains(got, `error="invalid_token"`) != sentBearer {
					t.Fatalf("WWW-Authenticate %q for Authorization %q", got, tt.hdr["Authorization"])
				}
			case 204:
				if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "https://app.example.com" {
					t.Fatalf("Access-Control-Allow-Origin %q", got)
				}
				if !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") {
					t.Fatalf("Access-Control-Allow-Headers %q", resp.Header.Get("Access-Control-Allow-Headers"))
				}
			}
		})
	}

	t.Run("SDK client with the token", func(t *testing.T) {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		hc := &http.Client{Transport: bearer{token: token}}
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp", HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if got := callText(t, cs, "say_hello", map[string]any{"name": "auth"}); got != "hello auth" {
			t.Fatalf("say_hello = %q", got)
		}
		sc, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: e.base + "/sse", HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		if got := callText(t, sc, "say_hello", map[string]any{"name": "auth sse"}); got != "hello auth sse" {
			t.Fatalf("say_hello = %q", got)
		}
	})

	log := e.log.String()
	for _, want := range []string{`msg="http request" method=POST path=/mcp status=403`, `refused="origin not allowed"`, `refused="host not allowed"`, `refused=unauthorized`, `path=/mcp status=200`} {
		if !strings.Contains(log, want) {
			t.Errorf("access log lacks %q", want)
		}
	}
	if strings.Contains(log, token) {
		t.Error("the token is in the log")
	}
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// streamLines sends the lines of a stream's body, without their line
// ends, and closes the channel when the body ends.
func streamLines(body io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		br := bufio.NewReader(body)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimRight(line, "\r\n")
		}
	}()
	return lines
}

// TestHTTPKeepAliveOnMCPStreams: the SSE streams of streamable HTTP get
// keep-alive comments and X-Accel-Buffering: no, as /sse streams do: the
// GET stream that waits for notifications, which proxies would otherwise
// close as idle.
func TestHTTPKeepAliveOnMCPStreams(t *testing.T) {
	e := startHTTP(t, HTTPOptions{SSEKeepAlive: 50 * time.Millisecond})
	hdr := rawSession(t, e, "2025-06-18")
	resp := rawGet(t, e, hdr)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("GET /mcp: %s, X-Accel-Buffering %q", resp.Status, resp.Header.Get("X-Accel-Buffering"))
	}
	lines := streamLines(resp.Body)
	deadline := time.After(10 * time.Second)
	for n := 0; n < 3; {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("the stream ended")
			}
			if line == ": keepalive" {
				n++
			}
		case <-deadline:
			t.Fatal("no keep-alive comments on the GET stream")
		}
	}
}

// TestHTTPDeleteCancelsCalls: a DELETE that ends a session with a call in
// flight cancels the call (its command is stopped) and is answered at
// once, instead of waiting for the call to finish and dropping its answer.
func TestHTTPDeleteCancelsCalls(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	hdr := rawSession(t, e, "2025-06-18")
	callDone := make(chan time.Time, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, e.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":30}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		callDone <- time.Now()
	}()
	waitUntil(t, "the call to be in flight", func() bool { return e.hs.inflight.Load() == 1 })
	start := time.Now()
	resp := rawDelete(t, e, hdr)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	// The command sleeps 30 s: a DELETE that waited for it would take that.
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("DELETE took %s: it waited for the call", d)
	}
	select {
	case <-callDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the call's POST did not end after the DELETE")
	}
	waitUntil(t, "no call in flight", func() bool { return e.hs.inflight.Load() == 0 })
}

// TestHTTPUnknownMethod: a request for a method the server does not serve
// gets the JSON-RPC error stdio gives (-32601), under its id, not the SDK's
// plain-text 400; other requests the SDK refuses keep their 400.
func TestHTTPUnknownMethod(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	hdr := rawSession(t, e, "2025-06-18")
	resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":24,"method":"nope"}`, hdr)
	body, _ := io.ReadAll(resp.Body)
	var m struct {
		ID    float64 `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &m) != nil || m.ID != 24 || m.Error.Code != -32601 || m.Error.Message != `method not found: "nope"` {
		t.Fatalf("unknown method: %s %q", resp.Status, body)
	}
	// A notification sent with an id: still the SDK's 400.
	resp = rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":25,"method":"notifications/initialized"}`, hdr)
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "unexpected id") {
		t.Fatalf("notification with an id: %s %q", resp.Status, body)
	}
}

// TestHTTPSlowBody: a body that stops arriving is answered 408 once the
// body read timeout passes, and the connection is closed: the server does
// not wait, with no deadline, for the rest of a body that may never come.
func TestHTTPSlowBody(t *testing.T) {
	e := startHTTP(t, HTTPOptions{BodyReadTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	host := strings.TrimPrefix(e.base, "http://")
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{", host)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	reply, err := io.ReadAll(conn) // to the close
	if err != nil {
		t.Fatalf("reading the answer: %v (got %q)", err, reply)
	}
	if !strings.HasPrefix(string(reply), "HTTP/1.1 408 ") || !strings.Contains(string(reply), "did not arrive within 300ms") {
		t.Fatalf("answer to a stalled body: %q", reply)
	}
}

// TestHTTPBodyLimit: bodies over the limit are refused with 413, whether
// their length is declared or not, on /mcp and on /messages.
func TestHTTPBodyLimit(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			e := startHTTP(t, HTTPOptions{MaxBodyBytes: 1024, Stateless: stateless})
			big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"` + strings.Repeat("x", 2000) + `"}}}`
			small := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"x"}}}`
			hdr := map[string]string{"Mcp-Protocol-Version": "2025-06-18"}
			if stateless {
				if resp := rawPost(t, e.base+"/mcp", small, hdr); resp.StatusCode != http.StatusOK {
					t.Fatalf("small body: %s", resp.Status)
				}
			}
			resp := rawPost(t, e.base+"/mcp", big, hdr)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "--max-message-size") {
				t.Fatalf("declared length: %s %q, want 413 naming --max-message-size", resp.Status, b)
			}
			// Chunked: no length to check up front.
			req, _ := http.NewRequest(http.MethodPost, e.base+"/mcp", io.MultiReader(strings.NewReader(big)))
			req.ContentLength = -1
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			cresp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			cb, _ := io.ReadAll(cresp.Body)
			cresp.Body.Close()
			if cresp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(cb), "--max-message-size") {
				t.Fatalf("chunked: %s %q, want 413 naming --max-message-size", cresp.Status, cb)
			}
		})
	}
	t.Run("messages", func(t *testing.T) {
		e := startHTTP(t, HTTPOptions{MaxBodyBytes: 1024})
		resp, err := http.Get(e.base + "/sse")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		ev, _ := newSSEReader(resp.Body).next()
		big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":"` + strings.Repeat("x", 2000) + `"}}}`
		req, _ := http.NewRequest(http.MethodPost, e.base+ev.data, io.MultiReader(strings.NewReader(big)))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		mresp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		mb, _ := io.ReadAll(mresp.Body)
		mresp.Body.Close()
		if mresp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(mb), "--max-message-size") {
			t.Fatalf("chunked POST /messages: %s %q, want 413 naming --max-message-size", mresp.Status, mb)
		}
	})
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
			waitUntil(t, "both calls are in flight", func() bool { return e.hs.InFlight() == 2 })
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
	waitUntil(t, "the call is in flight", func() bool { return e.hs.InFlight() == 1 })
	if err := e.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if !strings.Contains(e.log.String(), "shutdown timeout reached") {
		t.Fatal("no log of the deadline")
	}
	// The 30 s sleep was killed: the handler has returned.
	waitUntil(t, "the cancelled call returns", func() bool { return e.hs.InFlight() == 0 })
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
const httpFeatureConfig = `
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
    command = ["sh", "-c", "touch \"$1/started\"; sleep 30; touch \"$1/marker\"; echo finished", "marker", param.dir]
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
    command    = ["sh", "-c", "echo info-line >&2; echo out"]
    stderr_log = "info"
  }
}
tool "warning_log" {
  description = "logs a line at warning"
  exec {
    command    = ["sh", "-c", "echo warning-line >&2; echo out"]
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
	resp, err := http.Get(e.base + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	r := newSSEReader(resp.Body)
	ev, err := r.next()
	if err != nil || ev.name != "endpoint" {
		t.Fatalf("first event %+v, %v; want the endpoint", ev, err)
	}
	return r, func(body string) {
		t.Helper()
		if resp := rawPost(t, e.base+ev.data, body, nil); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST %s: %s, want 202", body, resp.Status)
		}
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
	waitUntil(t, path+" exists", func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// TestHTTPCancelledCallGetsNoResult: a call the client cancels with
// notifications/cancelled has its backend killed and gets no response at
// all, over streamable HTTP (its POST stream ends without one, and a
// resumption of the stream does not replay one) and over SSE; its id can
// be used again afterwards.
func TestHTTPCancelledCallGetsNoResult(t *testing.T) {
	const cancel55 = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":55,"reason":"the user pressed stop"}}`
	call := func(id int, tool string, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
	}
	t.Run("streamable HTTP", func(t *testing.T) {
		e := startHTTPConfig(t, HTTPOptions{}, httpFeatureConfig)
		// 2025-11-25 sessions get a priming event, so the stream can be
		// resumed.
		hdr := rawSession(t, e, "2025-11-25")
		dir := t.TempDir()
		resp := rawPost(t, e.base+"/mcp", call(55, "marker", fmt.Sprintf(`{"dir":%q}`, dir)), hdr)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("tools/call: %s", resp.Status)
		}
		waitForFile(t, filepath.Join(dir, "started"))
		if c := rawPost(t, e.base+"/mcp", cancel55, hdr); c.StatusCode != http.StatusAccepted {
			t.Fatalf("notifications/cancelled: %s, want 202", c.Status)
		}
		evs := readAllEvents(t, resp.Body)
		if a, ok := answers(t, evs)["55"]; ok {
			t.Fatalf("the cancelled call got a response: %v", a)
		}
		waitUntil(t, "the cancelled call ended", func() bool { return e.hs.InFlight() == 0 })
		if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
			t.Fatal("the backend ran to its end: it was not killed")
		}

		lastID := ""
		for _, ev := range evs {
			if ev.id != "" {
				lastID = ev.id
			}
		}
		if lastID == "" {
			t.Fatalf("no event id to resume from in %+v", evs)
		}
		gresp := rawGet(t, e, map[string]string{"Last-Event-ID": lastID, "Mcp-Session-Id": hdr["Mcp-Session-Id"], "Mcp-Protocol-Version": hdr["Mcp-Protocol-Version"]})
		if a, ok := answers(t, readAllEvents(t, gresp.Body))["55"]; ok {
			t.Fatalf("resuming the stream replayed a response to the cancelled call: %v", a)
		}
		// 204, not an empty event stream: the TypeScript client takes a
		// stream that ends without its answer for a broken one, and tries
		// again, with no Last-Event-ID, which the session's GET stream
		// refuses with 409.
		if gresp.StatusCode != http.StatusNoContent {
			t.Fatalf("resuming the cancelled call's stream: %s, want 204 No Content", gresp.Status)
		}

		again := rawPost(t, e.base+"/mcp", call(55, "quick", "{}"), hdr)
		a := answers(t, readAllEvents(t, again.Body))["55"]
		if !strings.Contains(fmt.Sprint(a["result"]), "quick") {
			t.Fatalf("a new call reusing the id: %v", a)
		}
	})
	t.Run("SSE", func(t *testing.T) {
		e := startHTTPConfig(t, HTTPOptions{}, httpFeatureConfig)
		stream, post := openSSE(t, e)
		initializeSSE(t, stream, post)
		dir := t.TempDir()
		post(call(55, "marker", fmt.Sprintf(`{"dir":%q}`, dir)))
		waitForFile(t, filepath.Join(dir, "started"))
		post(cancel55)
		// The cancelled call ends (its answer dropped) before the next.
		e.hs.sse.mu.Lock()
		var sess *sseSession
		for _, s := range e.hs.sse.sessions {
			sess = s
		}
		e.hs.sse.mu.Unlock()
		waitUntil(t, "the cancelled call ended", func() bool { return sess.pending.Load() == 0 })
		if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
			t.Fatal("the backend ran to its end: it was not killed")
		}
		post(call(56, "quick", "{}"))
		for {
			m := stream.message(t)
			if fmt.Sprint(m["id"]) == "55" {
				t.Fatalf("the cancelled call got a response: %v", m)
			}
			if fmt.Sprint(m["id"]) == "56" {
				break
			}
		}
		post(call(55, "quick", "{}"))
		if m := stream.message(t); fmt.Sprint(m["id"]) != "55" || !strings.Contains(fmt.Sprint(m["result"]), "quick") {
			t.Fatalf("a new call reusing the id: %v", m)
		}
	})
}

// TestHTTPLogLevel: until a client sets a level it gets warning and above,
// in every mode; with --stateless, a level set by one request does not
// reach the next (each request is a session of its own).
func TestHTTPLogLevel(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stateless bool
		sse       bool
	}{
		{name: "sessions"},
		{name: "stateless", stateless: true},
		{name: "SSE", sse: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startHTTPConfig(t, HTTPOptions{Stateless: tc.stateless}, httpFeatureConfig)
			logs := make(chan *mcp.LoggingMessageParams, 16)
			opts := &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { logs <- r.Params }}
			var cs *mcp.ClientSession
			if tc.sse {
				cs = e.connectSSE(opts)
			} else {
				cs = e.connect(opts, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
			}
			// Log notifications are handled in the order they arrive: an
			// info line would come before the warning line.
			nextLog := func() string {
				t.Helper()
				select {
				case p := <-logs:
					return fmt.Sprintf("%s %v", p.Level, p.Data)
				case <-time.After(15 * time.Second):
					t.Fatal("no log notification")
					return ""
				}
			}
			callText(t, cs, "info_log", nil)
			callText(t, cs, "warning_log", nil)
			if got := nextLog(); got != "warning warning-line" {
				t.Fatalf("without a level set: first log %q, want the warning line only", got)
			}

			if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
				t.Fatal(err)
			}
			callText(t, cs, "info_log", nil)
			callText(t, cs, "warning_log", nil)
			want := "info info-line"
			if tc.stateless {
				want = "warning warning-line"
			}
			if got := nextLog(); got != want {
				t.Fatalf("after setLevel info: first log %q, want %q", got, want)
			}
		})
	}
}

// TestHTTPRequestWithoutSession: on a server with sessions, a POST without
// Mcp-Session-Id that does not initialize gets 400 and a JSON-RPC error
// saying what to send; initialize, and the 2026-07-28 protocol's requests
// (which the SDK answers with the versions it takes), pass.
func TestHTTPRequestWithoutSession(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	for _, tc := range []struct {
		name     string
		body     string
		hdr      map[string]string
		status   int
		wantID   any // the error's id; nil for null
		wantCode float64
		wantMsg  []string
	}{
		{
			name:   "tools/list",
			body:   `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
			status: http.StatusBadRequest, wantID: float64(7), wantCode: -32600,
			wantMsg: []string{`"tools/list"`, "send initialize first", "Mcp-Session-Id"},
		},
		{
			name:   "ping with a string id",
			body:   `{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
			hdr:    map[string]string{"Mcp-Protocol-Version": "2025-06-18"},
			status: http.StatusBadRequest, wantID: "abc", wantCode: -32600,
			wantMsg: []string{`"ping"`, "send initialize first"},
		},
		{
			name:   "notification",
			body:   `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			status: http.StatusBadRequest, wantID: nil, wantCode: -32600,
			wantMsg: []string{"send initialize first"},
		},
		{
			name:   "initialize",
			body:   `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
			status: http.StatusOK,
		},
		{
			name: "2026-07-28 request",
			body: `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			hdr:  map[string]string{"Mcp-Protocol-Version": "2026-07-28"},
			// The SDK's answer: the versions a server with sessions takes.
			status: http.StatusBadRequest, wantID: float64(9), wantCode: float64(mcp.CodeUnsupportedProtocolVersion),
			wantMsg: []string{"not supported"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPost(t, e.base+"/mcp", tc.body, tc.hdr)
			if resp.StatusCode != tc.status {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %s %q, want %d", resp.Status, b, tc.status)
			}
			if tc.status == http.StatusOK {
				if resp.Header.Get("Mcp-Session-Id") == "" {
					t.Fatal("initialize got no Mcp-Session-Id")
				}
				return
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q, want application/json", ct)
			}
			var m struct {
				JSONRPC string `json:"jsonrpc"`
				ID      any    `json:"id"`
				Error   struct {
					Code    float64 `json:"code"`
					Message string  `json:"message"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
				t.Fatal(err)
			}
			if m.JSONRPC != "2.0" || m.ID != tc.wantID || m.Error.Code != tc.wantCode {
				t.Fatalf("got %+v, want id %v and code %v", m, tc.wantID, tc.wantCode)
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(m.Error.Message, w) {
					t.Errorf("message %q does not say %q", m.Error.Message, w)
				}
			}
		})
	}
	if strings.Count(e.log.String(), `refused="no session id"`) != 3 {
		t.Errorf("the access log does not note the three refusals:\n%s", e.log.String())
	}
}

// TestHTTPConfirm: with --stateless, a tool with confirm or ask cannot ask
// even a client that supports elicitation, and the error says that
// --stateless is why and what to do; confirm_fallback = "allow" runs the
// tool. With sessions the same client is asked.
func TestHTTPConfirm(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stateless bool
		tool      string
		wantErr   bool
		want      []string
	}{
		{name: "sessions: confirm asks", tool: "delete_file", want: []string{"deleted"}},
		{name: "sessions: ask asks", tool: "book", want: []string{"at 19:30"}},
		{name: "stateless: confirm refused", stateless: true, tool: "delete_file", wantErr: true,
			want: []string{"--stateless", "serve without --stateless", `confirm_fallback = "allow"`}},
		{name: "stateless: confirm_fallback allow", stateless: true, tool: "delete_allowed", want: []string{"ran"}},
		{name: "stateless: ask refused", stateless: true, tool: "book", wantErr: true,
			want: []string{"--stateless", "serve without --stateless"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startHTTPConfig(t, HTTPOptions{Stateless: tc.stateless}, httpFeatureConfig)
			opts := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				if r.Params.Message == "When?" {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"time": "19:30"}}, nil
				}
				return &mcp.ElicitResult{Action: "accept"}, nil
			}}
			cs := e.connect(opts, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool})
			if err != nil {
				t.Fatal(err)
			}
			text := ""
			if len(res.Content) > 0 {
				text = res.Content[0].(*mcp.TextContent).Text
			}
			if res.IsError != tc.wantErr {
				t.Fatalf("isError %v, want %v: %q", res.IsError, tc.wantErr, text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q does not say %q", text, w)
				}
			}
			if strings.Contains(text, "does not support elicitation") {
				t.Errorf("%q blames the client", text)
			}
		})
	}
}

// TestHTTPParamsErrors: over streamable HTTP, with sessions and without, a
// request whose params have a value of the wrong type gets -32602 naming
// the parameter, under its id; the session goes on serving.
func TestHTTPParamsErrors(t *testing.T) {
	forEachMode(t, func(t *testing.T, e *httpEnv, hdr map[string]string) {
		resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":"q","method":"resources/read","params":{"uri":5}}`, hdr)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s, Content-Type %q; want 200 with JSON", resp.Status, resp.Header.Get("Content-Type"))
		}
		var m struct {
			ID    any `json:"id"`
			Error struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		want := `invalid params of resources/read: "uri" must be a string, not a number`
		if m.ID != "q" || m.Error.Code != -32602 || m.Error.Message != want {
			t.Fatalf("got %+v, want id \"q\", code -32602 and %q", m, want)
		}
		resp = rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"after"}}}`, hdr)
		if r := newSSEReader(resp.Body).message(t); !strings.Contains(fmt.Sprint(r["result"]), "hello after") {
			t.Fatalf("the call after the error: %v", r)
		}
		if !strings.Contains(e.log.String(), `refused="invalid params"`) {
			t.Errorf("the access log does not note the refusal:\n%s", e.log.String())
		}
		// Keys match case-sensitively, as the SDK reads them: "Params"
		// is not the params, and the SDK serves the request.
		resp = rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":9,"method":"tools/list","Params":{"cursor":5}}`, hdr)
		if r := newSSEReader(resp.Body).message(t); !strings.Contains(fmt.Sprint(r["result"]), "say_hello") {
			t.Fatalf("tools/list with a \"Params\" key: %v", r)
		}
		// A body that is not JSON: the JSON-RPC parse error, in JSON.
		resp = rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":11,garbage`, hdr)
		b, _ := io.ReadAll(resp.Body)
		var pe struct {
			ID    any `json:"id"`
			Error struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(b, &pe) != nil || pe.ID != nil || pe.Error.Code != jsonrpc.CodeParseError {
			t.Fatalf("a body that is not JSON: %s %q %s; want 400 with a JSON-RPC parse error", resp.Status, resp.Header.Get("Content-Type"), b)
		}
		// The same with a session that is gone: 404 first, so that the
		// client starts a new session.
		gone := map[string]string{"Mcp-Session-Id": "NOSUCHSESSION", "Mcp-Protocol-Version": hdr["Mcp-Protocol-Version"]}
		if resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":12,garbage`, gone); !e.hs.opts.Stateless && resp.StatusCode != http.StatusNotFound {
			t.Fatalf("a body that is not JSON, of a session that is gone: %s, want 404", resp.Status)
		}
		// A batch, even of one, is the SDK's to answer.
		resp = rawPost(t, e.base+"/mcp", `[{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":5}}]`, hdr)
		b, _ = io.ReadAll(resp.Body)
		if strings.Contains(string(b), "invalid params of") {
			t.Fatalf("a batch of one was answered by the params check: %s %s", resp.Status, b)
		}
	})
}

// TestHTTPSecondInitialize: a second initialize on a streamable HTTP
// session is refused with -32600, not with the code 0 the SDK gives its
// own errors.
func TestHTTPSecondInitialize(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	hdr := rawSession(t, e, "2025-06-18")
	resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, hdr)
	m := newSSEReader(resp.Body).message(t)
	e2, _ := m["error"].(map[string]any)
	if m["id"] != "again" || e2["code"] != float64(jsonrpc.CodeInvalidRequest) || !strings.Contains(fmt.Sprint(e2["message"]), "initialize") {
		t.Fatalf("a second initialize: %v, want id \"again\" and code -32600", m)
	}
	resp = rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"after"}}}`, hdr)
	if r := newSSEReader(resp.Body).message(t); !strings.Contains(fmt.Sprint(r["result"]), "hello after") {
		t.Fatalf("the call after the refusal: %v", r)
	}
}

// TestHTTPDeepBody: a POST nested two million levels deep (under the 4 MiB
// body limit) gets the SDK's nesting error, and the server goes on: the
// params check peeks at bodies with a parser that recurses once per level
// and would overflow the stack.
func TestHTTPDeepBody(t *testing.T) {
	forEachMode(t, func(t *testing.T, e *httpEnv, hdr map[string]string) {
		const depth = 2_000_000
		body := `{"jsonrpc":"2.0","id":2,"method":"ping","params":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
		resp := rawPost(t, e.base+"/mcp", body, hdr)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusOK && !strings.Contains(string(b), "depth") {
			t.Fatalf("%s %.200s: want the SDK's nesting error", resp.Status, b)
		}
		resp = rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"still here"}}}`, hdr)
		if r := newSSEReader(resp.Body).message(t); !strings.Contains(fmt.Sprint(r["result"]), "hello still here") {
			t.Fatalf("the call after the deep body: %v", r)
		}
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

// TestHTTPNullPromptArgument: over streamable HTTP, with sessions and
// without, in a batch, and over the legacy SSE transport, a prompt
// argument sent as null gets its default, as if left out.
func TestHTTPNullPromptArgument(t *testing.T) {
	const get = `{"jsonrpc":"2.0","id":%d,"method":"prompts/get","params":{"name":"summarize","arguments":{"count":null}}}`
	wantText := func(t *testing.T, m map[string]any) {
		t.Helper()
		if got := fmt.Sprint(m["result"]); !strings.Contains(got, "text:limit 10") {
			t.Fatalf("prompts/get with a null argument: %v, want the text \"limit 10\"", m)
		}
	}
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			e := startHTTPConfig(t, HTTPOptions{Stateless: stateless}, nullArgConfig)
			hdr := map[string]string{"Mcp-Protocol-Version": "2025-06-18"}
			if !stateless {
				hdr = rawSession(t, e, "2025-06-18")
			}
			wantText(t, newSSEReader(rawPost(t, e.base+"/mcp", fmt.Sprintf(get, 1), hdr).Body).message(t))
		})
	}
	// The rewritten body is never longer than the one sent: a body just
	// within the size limit stays within it (json.Marshal would have
	// written each < as \u003c).
	t.Run("size limit", func(t *testing.T) {
		const limit = 4096
		e := startHTTPConfig(t, HTTPOptions{MaxBodyBytes: limit}, nullArgConfig)
		hdr := rawSession(t, e, "2025-06-18")
		body := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"summarize","arguments":{"count":null},"_meta":{"note":"` +
			strings.Repeat("<", limit-150) + `"}}}`
		resp := rawPost(t, e.base+"/mcp", body, hdr)
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("a body of %d bytes (limit %d): %s %s", len(body), limit, resp.Status, b)
		}
		wantText(t, newSSEReader(resp.Body).message(t))
	})
	t.Run("batch", func(t *testing.T) {
		e := startHTTPConfig(t, HTTPOptions{}, nullArgConfig)
		hdr := rawSession(t, e, "2025-03-26")
		resp := rawPost(t, e.base+"/mcp", "["+fmt.Sprintf(get, 1)+`,{"jsonrpc":"2.0","id":2,"method":"ping"}]`, hdr)
		r := newSSEReader(resp.Body)
		for range 2 {
			if m := r.message(t); m["id"] == float64(1) {
				wantText(t, m)
				return
			}
		}
		t.Fatal("no answer to the prompts/get of the batch")
	})
	t.Run("legacy SSE", func(t *testing.T) {
		e := startHTTPConfig(t, HTTPOptions{}, nullArgConfig)
		r, post := openSSE(t, e)
		initializeSSE(t, r, post)
		post(fmt.Sprintf(get, 1))
		wantText(t, r.message(t))
	})
}

// TestHTTPSSEParamsErrors: over the legacy SSE transport, a request whose
// params have a value of the wrong type is answered on the stream with
// -32602 naming the parameter, under its id, and the session goes on;
// before initialize, the SDK's refusal says to initialize first.
func TestHTTPSSEParamsErrors(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	r, post := openSSE(t, e)
	errorOf := func(m map[string]any) string {
		e, _ := m["error"].(map[string]any)
		return fmt.Sprint(e["code"], " ", e["message"])
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":5}}`)
	// The SDK's refusal has no JSON-RPC code of its own (it would go out
	// as code 0): it gets -32600, as on stdio.
	if m := r.message(t); m["id"] != float64(1) || !strings.HasPrefix(errorOf(m), "-32600 ") || !strings.Contains(errorOf(m), "send initialize (and notifications/initialized) first") {
		t.Fatalf("before initialize: %v, want -32600 and the SDK's refusal saying to initialize", m)
	}
	initializeSSE(t, r, post)
	post(`{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := r.message(t); m["id"] != "again" || !strings.HasPrefix(errorOf(m), "-32600 ") {
		t.Fatalf("a second initialize: %v, want -32600", m)
	}
	post(`{"jsonrpc":"2.0","id":"q","method":"resources/read","params":{"uri":5}}`)
	want := `-32602 invalid params of resources/read: "uri" must be a string, not a number`
	if m := r.message(t); m["id"] != "q" || errorOf(m) != want {
		t.Fatalf("got %v, want id \"q\" and %q", m, want)
	}
	post(`{"jsonrpc":"2.0","id":"p","method":"prompts/get","params":{"name":"x","arguments":{"count":5}}}`)
	if m := r.message(t); m["id"] != "p" || !strings.Contains(errorOf(m), `"arguments.count" must be a string, not a number`) {
		t.Fatalf("prompts/get with a number argument: %v", m)
	}
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"after"}}}`)
	if m := r.message(t); m["id"] != float64(2) || !strings.Contains(fmt.Sprint(m["result"]), "hello after") {
		t.Fatalf("the call after the errors: %v", m)
	}
	// Every answer was counted: a shutdown does not wait for one more.
	// (An answer is uncounted just after it is written, so it may reach
	// the test first.)
	waitUntil(t, "no call pending", func() bool { return ssePending(e) == 0 })
}

// TestHTTPSSENotJSONRPC: a POST to an SSE session's endpoint whose body is
// not one JSON-RPC message gets 400 saying what to send, and the session
// goes on.
func TestHTTPSSENotJSONRPC(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	resp, err := http.Get(e.base + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := newSSEReader(resp.Body)
	ev, err := r.next()
	if err != nil || ev.name != "endpoint" {
		t.Fatalf("first event %+v, %v; want the endpoint", ev, err)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"not JSON", `hello`, `the body is not valid JSON: send one JSON-RPC 2.0 message per POST, as in {"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"not JSON-RPC", `{"id":1}`, "the body is not a JSON-RPC 2.0 message: send one"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "batches are not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPost(t, e.base+ev.data, tc.body, nil)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tc.want) {
				t.Fatalf("POST %s: %s %q, want 400 with %q", tc.body, resp.Status, b, tc.want)
			}
		})
	}
	if resp := rawPost(t, e.base+ev.data, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("ping after the errors: %s", resp.Status)
	}
	if m := r.message(t); m["id"] != float64(7) {
		t.Fatalf("the answer to ping: %v", m)
	}
}

// ssePending is the number of calls pending on the server's legacy SSE
// sessions.
func ssePending(e *httpEnv) (n int64) {
	e.hs.sse.mu.Lock()
	defer e.hs.sse.mu.Unlock()
	for _, s := range e.hs.sse.sessions {
		n += s.pending.Load()
	}
	return n
}

// TestHTTPSSEDuplicateID: a call sent over the legacy SSE transport with the
// id of a call still running gets no answer from the SDK, and must not be
// counted as pending: a shutdown would wait for it until its timeout.
func TestHTTPSSEDuplicateID(t *testing.T) {
	e := startHTTP(t, HTTPOptions{ShutdownTimeout: 5 * time.Second})
	r, post := openSSE(t, e)
	initializeSSE(t, r, post)
	post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":0.3}}}`)
	post(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	post(`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":5}}`)
	if m := r.message(t); m["id"] != float64(7) || !strings.Contains(fmt.Sprint(m["result"]), "slept") {
		t.Fatalf("got %v, want the answer to the first call 7", m)
	}
	waitUntil(t, "no call pending", func() bool { return ssePending(e) == 0 })
	start := time.Now()
	if err := e.stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the shutdown took %v with no call running", d.Round(time.Millisecond))
	}
}

// replayConn is an mcp.Connection that reads the given messages in order
// and keeps what is written, to drive sseConn in an exact order.
type replayConn struct {
	in      []jsonrpc.Message
	written []jsonrpc.Message
}

func (c *replayConn) Read(context.Context) (jsonrpc.Message, error) {
	if len(c.in) == 0 {
		return nil, io.EOF
	}
	m := c.in[0]
	c.in = c.in[1:]
	return m, nil
}

func (c *replayConn) Write(_ context.Context, m jsonrpc.Message) error {
	c.written = append(c.written, m)
	return nil
}

func (c *replayConn) Close() error      { return nil }
func (c *replayConn) SessionID() string { return "" }

// TestSSEConnDuplicateInFlight: the SDK frees a call's id just before it
// writes the answer, so a call reusing the id can reach the SDK while the
// session still waits for that answer. The session drops it, as the SDK
// drops a duplicate, instead of letting it run uncounted (a shutdown would
// end the stream without its answer); every call read is answered once and
// the count of pending calls ends at 0. (Found in review: the order cannot
// be forced over a real connection.)
func TestSSEConnDuplicateInFlight(t *testing.T) {
	mkID := func(id int64) jsonrpc.ID {
		v, err := jsonrpc.MakeID(float64(id))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	call := func(id int64, method string) *jsonrpc.Request {
		return &jsonrpc.Request{ID: mkID(id), Method: method, Params: []byte(`{}`)}
	}
	answer := func(id int64) *jsonrpc.Response {
		return &jsonrpc.Response{ID: mkID(id), Result: []byte(`{}`)}
	}
	s := &sseSession{answered: make(chan struct{}, 1), calls: map[jsonrpc.ID]bool{}}
	s.sawInitialize.Store(true)
	rc := &replayConn{in: []jsonrpc.Message{call(7, "ping"), call(7, "tools/list"), call(8, "ping")}}
	c := &sseConn{Connection: rc, s: s}
	ctx := context.Background()
	var read []string
	for {
		m, err := c.Read(ctx)
		if err != nil {
			break
		}
		r := m.(*jsonrpc.Request)
		read = append(read, fmt.Sprintf("%s %v", r.Method, r.ID.Raw()))
	}
	if got, want := strings.Join(read, ", "), "ping 7, ping 8"; got != want {
		t.Fatalf("read %s, want %s (the second call 7 dropped)", got, want)
	}
	if n := s.pending.Load(); n != 2 {
		t.Errorf("pending %d after reading, want 2", n)
	}
	for _, id := range []int64{7, 8} {
		if err := c.Write(ctx, answer(id)); err != nil {
			t.Fatal(err)
		}
	}
	// An answer to a call the session does not track leaves the count.
	if err := c.Write(ctx, answer(9)); err != nil {
		t.Fatal(err)
	}
	if n := s.pending.Load(); n != 0 {
		t.Errorf("pending %d after the answers, want 0", n)
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
			waitUntil(t, "the start is logged", func() bool { return strings.Contains(log.String(), "serving over HTTP") })
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

// TestHTTPGetStreamNoReplay: a GET stream opened without Last-Event-ID
// starts where the session's last GET stream stopped. A notification the
// client had is not sent again (the spec: a message goes out on one stream
// only), once its stream outlived it by the grace (two keep-alive
// intervals); one sent as the client was leaving, or while no GET stream
// was open, is delivered on the next stream: not lost.
func TestHTTPGetStreamNoReplay(t *testing.T) {
	const keepAlive = 50 * time.Millisecond
	e := startHTTP(t, HTTPOptions{SSEKeepAlive: keepAlive})
	hdr := rawSession(t, e, "2025-06-18")
	r, closeGET := openGET(t, e, hdr)
	addToolByReload(t, e, 1)
	first := nextMessage(t, r)
	if !strings.Contains(first.data, "notifications/tools/list_changed") || first.id == "" {
		t.Fatalf("first event %+v", first)
	}
	time.Sleep(6 * keepAlive) // the stream outlives the event by the grace
	closeGET()

	// A notification sent as the stream closes (the server may write it
	// to the stream before it sees the client gone) comes on the next.
	addToolByReload(t, e, 2)
	r, closeGET = openGET(t, e, hdr)
	defer closeGET()
	ev := nextMessage(t, r)
	if ev.id == first.id {
		t.Fatalf("the new GET stream replayed event %s, which the client had", ev.id)
	}
	if !strings.Contains(ev.data, "notifications/tools/list_changed") {
		t.Fatalf("second event %+v", ev)
	}
	// And a live one after it.
	addToolByReload(t, e, 3)
	if ev2 := nextMessage(t, r); ev2.id == ev.id || ev2.id == first.id {
		t.Fatalf("third event %+v repeats an earlier one", ev2)
	}
}

// TestHTTPGetStreamAfterPurge: once the event store (10 MiB for all
// sessions) has dropped the oldest events of a session's standalone
// stream, a new GET stream still opens (the SDK answered 400 "failed to
// replay events"), and notifications reach it.
func TestHTTPGetStreamAfterPurge(t *testing.T) {
	e := startHTTP(t, HTTPOptions{MaxBodyBytes: 4 << 20})
	hdr := rawSession(t, e, "2025-06-18")
	addToolByReload(t, e, 1) // stored for a GET stream to come
	name := strings.Repeat("x", 900<<10)
	for i := range 14 {
		resp := rawPost(t, e.base+"/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":%q}}}`, 10+i, name), hdr)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("call %d: %s", i, resp.Status)
		}
		if m := newSSEReader(resp.Body).message(t); m["result"] == nil {
			t.Fatalf("call %d: %v", i, m["error"])
		}
	}
	r, closeGET := openGET(t, e, hdr)
	defer closeGET()
	addToolByReload(t, e, 2)
	if ev := nextMessage(t, r); !strings.Contains(ev.data, "notifications/tools/list_changed") {
		t.Fatalf("event %+v", ev)
	}
}

// TestHTTPGetStreamAfterPartialPurge: when the store has dropped the oldest
// of the notifications kept for a GET stream to come, and not the others,
// a new GET stream gets the ones it still has.
func TestHTTPGetStreamAfterPartialPurge(t *testing.T) {
	e := startHTTP(t, HTTPOptions{MaxBodyBytes: 4 << 20})
	hdr := rawSession(t, e, "2025-06-18")
	for n := 1; n <= 3; n++ {
		addToolByReload(t, e, n) // _0, _1, _2, kept for a GET stream to come
		// The SDK sends one list_changed for the changes of 10 ms.
		time.Sleep(100 * time.Millisecond)
	}
	// 13 answers of 900 KiB: the 13th finds the store over its 10 MiB and
	// drops the first event of every stream once, _0 among them.
	name := strings.Repeat("x", 900<<10)
	for i := range 13 {
		resp := rawPost(t, e.base+"/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":%q}}}`, 10+i, name), hdr)
		if m := newSSEReader(resp.Body).message(t); m["result"] == nil {
			t.Fatalf("call %d: %v", i, m["error"])
		}
	}
	r, closeGET := openGET(t, e, hdr)
	defer closeGET()
	for _, want := range []string{"_1", "_2"} {
		if ev := nextMessage(t, r); ev.id != want || !strings.Contains(ev.data, "notifications/tools/list_changed") {
			t.Fatalf("event %+v, want %s, a list_changed", ev, want)
		}
	}
}

// TestHTTPSessionIdleTimeout: a session with no request open for the idle
// timeout is closed (its next request gets 404, which tells the client to
// start a new one); a GET stream waiting for notifications keeps it open,
// and so does a call that runs longer than the timeout.
func TestHTTPSessionIdleTimeout(t *testing.T) {
	// Long enough that a busy machine (-race) does not take the gaps
	// between a test's own requests for idleness.
	const idle = time.Second
	e := startHTTP(t, HTTPOptions{SessionIdleTimeout: idle})
	list := `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`
	status := func(hdr map[string]string) int {
		t.Helper()
		resp := rawPost(t, e.base+"/mcp", list, hdr)
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	// closed waits for the log line of the close of session hdr (a
	// request would be activity), then checks the session is gone.
	closed := func(hdr map[string]string) {
		t.Helper()
		waitUntil(t, "the idle session to be closed", func() bool {
			return strings.Contains(e.log.String(), `session closed after its idle timeout" session_id=`+hdr["Mcp-Session-Id"])
		})
		if got := status(hdr); got != http.StatusNotFound {
			t.Fatalf("a request of the closed session: %d, want 404", got)
		}
	}
	t.Run("idle session closed", func(t *testing.T) {
		closed(rawSession(t, e, "2025-06-18"))
	})
	t.Run("GET stream keeps it", func(t *testing.T) {
		hdr := rawSession(t, e, "2025-06-18")
		_, closeGET := openGET(t, e, hdr)
		time.Sleep(2 * idle)
		if got := status(hdr); got != http.StatusOK {
			t.Fatalf("a request after %s with the GET stream open: %d, want 200", 2*idle, got)
		}
		closeGET()
		closed(hdr)
	})
	t.Run("a long call keeps it", func(t *testing.T) {
		hdr := rawSession(t, e, "2025-06-18")
		resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":2}}}`, hdr)
		if m := newSSEReader(resp.Body).message(t); !strings.Contains(fmt.Sprint(m["result"]), "slept") {
			t.Fatalf("slow call: %v", m)
		}
		if got := status(hdr); got != http.StatusOK {
			t.Fatalf("a request right after a call longer than the idle timeout: %d, want 200", got)
		}
	})
}

// TestHTTPKeepAliveBeforeFirstEvent: a call's stream gets its headers and
// keep-alive comments before the call answers, also where the SDK writes
// nothing until the first event (protocols before 2025-11-25, and every
// protocol without an event store, in --stateless mode). A long call
// otherwise sends nothing at all until it ends, and a proxy takes it for
// an idle connection.
func TestHTTPKeepAliveBeforeFirstEvent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		version   string
		stateless bool
		batch     bool
	}{
		{"2025-03-26", "2025-03-26", false, false},
		{"2025-03-26 batch", "2025-03-26", false, true},
		{"2025-06-18", "2025-06-18", false, false},
		{"2025-11-25", "2025-11-25", false, false},
		{"stateless 2025-06-18", "2025-06-18", true, false},
		{"stateless 2025-11-25", "2025-11-25", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := startHTTP(t, HTTPOptions{SSEKeepAlive: 50 * time.Millisecond, Stateless: tc.stateless})
			hdr := map[string]string{"Mcp-Protocol-Version": tc.version}
			if !tc.stateless {
				hdr = rawSession(t, e, tc.version)
			}
			// The command sleeps 2 s, 40 keep-alive intervals.
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":2}}}`
			if tc.batch {
				// The comments start once both calls reached the server.
				body = "[" + body + `,{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":2}}}]`
			}
			resp := rawPost(t, e.base+"/mcp", body, hdr)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
				t.Fatalf("POST: %s, Content-Type %q, X-Accel-Buffering %q", resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("X-Accel-Buffering"))
			}
			lines := streamLines(resp.Body)
			deadline := time.After(10 * time.Second)
			for n := 0; n < 2; {
				select {
				case line, ok := <-lines:
					if !ok {
						t.Fatal("the stream ended")
					}
					// (2025-11-25 streams start with an empty priming event.)
					if data, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(data) != "" {
						t.Fatalf("an event before the call answered: %s", line)
					}
					if line == ": keepalive" {
						n++
					}
				case <-deadline:
					t.Fatal("no keep-alive comments before the call answered")
				}
			}
			// The answer follows, on the same stream.
			for line := range lines {
				if data, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(data) != "" {
					if !strings.Contains(data, `"id":7`) && !strings.Contains(data, `"id":8`) || !strings.Contains(data, "slept") {
						t.Fatalf("the answer: %s", data)
					}
					resp.Body.Close()
					return
				}
			}
			t.Fatal("the stream ended without the answer")
		})
	}
}

// TestHTTPNewProtocolLateErrorKeepsItsStatus: from 2026-07-28 on, the SDK
// answers a protocol-level error (here -32602, after the call has run a
// while) as a plain JSON body with a status of its own. The stream of such
// a call is not started early for keep-alives, which would have sent 200
// and an event stream first, and the error's status and body come
// through.
func TestHTTPNewProtocolLateErrorKeepsItsStatus(t *testing.T) {
	e := startHTTP(t, HTTPOptions{SSEKeepAlive: 20 * time.Millisecond, Stateless: true})
	e.srv.MCP().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req) // toolhost's middleware included
			if method == "tools/call" {
				time.Sleep(200 * time.Millisecond) // ten keep-alive intervals
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "refused late"}
			}
			return res, err
		}
	})
	resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "say_hello"})
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(string(body), "refused late") {
		t.Fatalf("%s, Content-Type %q: %s\nwant the SDK's own status and a JSON body with the error", resp.Status, resp.Header.Get("Content-Type"), body)
	}
}

// TestHTTPMaxSessions: past MaxSessions, a request that would open one
// more session, streamable or SSE, gets 503 with Retry-After and a
// JSON-RPC error saying why; the sessions open keep working, and ending
// one makes room.
func TestHTTPMaxSessions(t *testing.T) {
	e := startHTTP(t, HTTPOptions{MaxSessions: 2})
	first := rawSession(t, e, "2025-06-18")
	rawSession(t, e, "2025-06-18")

	resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Mcp-Session-Id") != "" ||
		!strings.Contains(string(body), `"id":0`) || !strings.Contains(string(body), "2 sessions open") || !strings.Contains(string(body), "--max-sessions") {
		t.Fatalf("a third initialize: %s, Retry-After %q, Mcp-Session-Id %q: %s", resp.Status, resp.Header.Get("Retry-After"), resp.Header.Get("Mcp-Session-Id"), body)
	}
	sse, err := http.Get(e.base + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(sse.Body)
	sse.Body.Close()
	if sse.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "--max-sessions") {
		t.Fatalf("GET /sse past the limit: %s: %s", sse.Status, body)
	}

	// The sessions open still work.
	if r := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"x"}}}`, first); r.StatusCode != http.StatusOK {
		t.Fatalf("a call on an open session: %s", r.Status)
	} else if m := newSSEReader(r.Body).message(t); m["id"] != float64(5) || m["error"] != nil {
		t.Fatalf("a call on an open session: %v", m)
	}

	// Ending one makes room for another.
	if del := rawDelete(t, e, first); del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", del.Status)
	}
	waitUntil(t, "room for a session", func() bool {
		n := 0
		for range e.srv.MCP().Sessions() {
			n++
		}
		return n < 2
	})
	rawSession(t, e, "2025-06-18")
}

// TestHTTPErrorsExplained: the SDK's plain-text answers to what a client
// gets wrong on /mcp (a session that is gone, a second GET stream, GET or
// DELETE on a stateless server) keep their status, which clients act on,
// and say why and what to do.
func TestHTTPErrorsExplained(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	stateless := startHTTP(t, HTTPOptions{Stateless: true})
	hdr := rawSession(t, e, "2025-06-18")
	_, closeGET := openGET(t, e, hdr)
	defer closeGET()
	gone := map[string]string{"Mcp-Session-Id": "GONE", "Mcp-Protocol-Version": "2025-06-18"}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	send := func(e *httpEnv, method string, hdr map[string]string) *http.Response {
		switch method {
		case http.MethodPost:
			return rawPost(t, e.base+"/mcp", list, hdr)
		case http.MethodGet:
			return rawGet(t, e, hdr)
		}
		return rawRequest(t, e, method, hdr)
	}
	tests := []struct {
		name   string
		e      *httpEnv
		method string
		hdr    map[string]string
		code   int
		want   string
	}{
		{"POST, session gone", e, http.MethodPost, gone, 404, "start a new one: send initialize without the Mcp-Session-Id header"},
		{"GET, session gone", e, http.MethodGet, gone, 404, "start a new one"},
		{"DELETE, session gone", e, http.MethodDelete, gone, 404, "start a new one"},
		{"second GET stream", e, http.MethodGet, hdr, 409, "a session has one GET stream for notifications"},
		{"GET, stateless", stateless, http.MethodGet, nil, 405, "this server runs with --stateless"},
		{"DELETE, stateless", stateless, http.MethodDelete, gone, 405, "no session to DELETE"},
		{"PUT", e, http.MethodPut, hdr, 405, "Method Not Allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := send(tt.e, tt.method, tt.hdr)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.code || !strings.Contains(string(b), tt.want) {
				t.Fatalf("%s /mcp: %s %q, want %d with %q", tt.method, resp.Status, b, tt.code, tt.want)
			}
			if tt.code == 405 && resp.Header.Get("Allow") == "" {
				t.Fatal("a 405 without Allow")
			}
		})
	}
}
