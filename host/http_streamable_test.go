package host

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

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
	testconfig.WaitFor(t, "the call to be in flight", func() bool { return e.hs.inflight.Load() == 1 })
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
	testconfig.WaitFor(t, "no call in flight", func() bool { return e.hs.inflight.Load() == 0 })
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
		testconfig.WaitFor(t, "the cancelled call ended", func() bool { return e.hs.InFlight() == 0 })
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
		testconfig.WaitFor(t, "the cancelled call ended", func() bool { return sess.pending.Load() == 0 })
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
			// Served without a session (TestHTTPSessionlessBesideSessions);
			// without its Mcp-Method header (SEP-2243) the SDK refuses it,
			// which says it reached the sessionless handler.
			name:   "2026-07-28 request",
			body:   `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			hdr:    map[string]string{"Mcp-Protocol-Version": "2026-07-28"},
			status: http.StatusBadRequest, wantID: float64(9), wantCode: -32020,
			wantMsg: []string{"Mcp-Method"},
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
		testconfig.WaitFor(t, "the idle session to be closed", func() bool {
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
	testconfig.WaitFor(t, "room for a session", func() bool {
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
