package host

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// sseErrorCases are messages a client can get wrong, each with the
// JSON-RPC error that answers it on every transport: code, and a part of
// the message. wantCode 0: no answer (a notification).
var sseErrorCases = []struct {
	name     string
	body     string // %s is the request's id, as JSON
	id       string
	wantCode int64
	wantMsg  string
}{
	{"unknown method", `{"jsonrpc":"2.0","id":%s,"method":"nope"}`, `1`, -32601, `method not found: "nope"`},
	{"unknown method, string id", `{"jsonrpc":"2.0","id":%s,"method":"tools/nope","params":{}}`, `"a"`, -32601, `method not found: "tools/nope"`},
	{"notification with an id", `{"jsonrpc":"2.0","id":%s,"method":"notifications/initialized"}`, `2`, -32600, `unexpected id for "notifications/initialized"`},
	{"missing params", `{"jsonrpc":"2.0","id":%s,"method":"tools/call"}`, `3`, -32600, `missing required "params"`},
	{"null params", `{"jsonrpc":"2.0","id":%s,"method":"resources/read","params":null}`, `4`, -32600, `missing required "params"`},
	{"params of the wrong type", `{"jsonrpc":"2.0","id":%s,"method":"resources/read","params":"x"}`, `5`, -32602, `params must be an object, not a string`},
	{"a param of the wrong type", `{"jsonrpc":"2.0","id":%s,"method":"prompts/get","params":{"name":5}}`, `6`, -32602, `"name" must be a string, not a number`},
	{"tools/call params of the wrong type", `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":5}}`, `"c"`, -32602, `invalid params`},
	{"unknown tool", `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, `7`, -32602, `nope`},
	{"wrong version", `{"jsonrpc":"1.0","id":%s,"method":"ping"}`, `8`, -32600, `Invalid Request: `},
	{"no version", `{"id":%s,"method":"ping"}`, `9`, -32600, `Invalid Request: `},
	{"method not a string", `{"jsonrpc":"2.0","id":%s,"method":5}`, `10`, -32600, `Invalid Request: `},
	{"id only", `{"jsonrpc":"2.0","id":%s}`, `11`, -32600, `Invalid Request: a message needs a "method"`},
	{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/nope"%.0s}`, ``, 0, ``},
}

// rpcError is the error of a reply, as the client reads it.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// TestHTTPSSEErrorsOnStream: over the legacy SSE transport, a message the
// server refuses (an unknown method, a notification sent with an id, params
// missing or of the wrong type, a malformed message with an id) is
// accepted with 202 and answered on the stream, under its id, with the
// JSON-RPC error stdio gives for the same message, word for word; the
// session goes on. (The SDK's SSE transport answered most of them with a
// plain-text 400 and nothing on the stream.)
func TestHTTPSSEErrorsOnStream(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	c := openSSEEndpoint(t, e)
	initializeSSE(t, c.r, func(body string) { postSSE(t, c.url, body) })
	stdio := startStdio(t, loadHTTPRegistry(t, httpTestConfig))
	stdio.initialize()
	for i, tc := range sseErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			stdio.t = t // its failures are the row's
			body := fmt.Sprintf(tc.body, tc.id)
			pingID := fmt.Sprintf(`"after-%d"`, i)
			postSSE(t, c.url, body)
			postSSE(t, c.url, `{"jsonrpc":"2.0","id":`+pingID+`,"method":"ping"}`)
			got := c.answers(t, tc.id, pingID)
			if _, ok := got[pingID]; !ok {
				t.Fatalf("no answer to the ping after %s", body)
			}
			stdio.send(body)
			stdio.send(`{"jsonrpc":"2.0","id":` + pingID + `,"method":"ping"}`)
			fromStdio := stdioAnswers(t, stdio, tc.id, pingID)
			if tc.wantCode == 0 {
				if a, ok := got[tc.id]; ok {
					t.Fatalf("a notification was answered: %+v", a)
				}
				return
			}
			a := got[tc.id]
			if a.Error == nil {
				t.Fatalf("%s: no error under id %s on the stream, got %s", body, tc.id, a.Result)
			}
			if a.Error.Code != tc.wantCode || !strings.Contains(a.Error.Message, tc.wantMsg) {
				t.Errorf("%s: error %d %q, want %d and %q", body, a.Error.Code, a.Error.Message, tc.wantCode, tc.wantMsg)
			}
			if s := fromStdio[tc.id]; s.Error == nil || *s.Error != *a.Error {
				t.Errorf("%s: error %+v over SSE, %+v over stdio: want the same", body, *a.Error, s.Error)
			}
		})
	}
	// Before initialize, the server refuses any method (an unknown one
	// too) with -32600, saying to initialize first.
	t.Run("before initialize", func(t *testing.T) {
		c := openSSEEndpoint(t, e)
		stdio := startStdio(t, loadHTTPRegistry(t, httpTestConfig))
		for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"nope"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`} {
			postSSE(t, c.url, body)
			stdio.send(body)
		}
		got, fromStdio := c.answers(t, "1", "2"), stdioAnswers(t, stdio, "1", "2")
		for _, id := range []string{"1", "2"} {
			a, s := got[id].Error, fromStdio[id].Error
			if a == nil || a.Code != -32600 || !strings.Contains(a.Message, "send initialize") || s == nil || *s != *a {
				t.Errorf("id %s before initialize: %+v over SSE, %+v over stdio; want the same -32600 saying to initialize", id, a, s)
			}
		}
	})
	testconfig.WaitFor(t, "no call pending", func() bool { return ssePending(e) == 0 })
}

// stdioAnswers reads stdio replies until it has one for each id (raw
// JSON; "" is skipped), and fails on a reply to anything else.
func stdioAnswers(t *testing.T, p *stdioPeer, ids ...string) map[string]sseReply {
	t.Helper()
	want := wantIDs(ids)
	got := map[string]sseReply{}
	for len(want) > 0 {
		r := p.next()
		if !want[string(r.ID)] {
			t.Fatalf("unexpected reply over stdio: %s", r.line)
		}
		delete(want, string(r.ID))
		a := sseReply{Result: r.Result}
		if r.Error != nil {
			a.Error = &rpcError{Code: r.Error.Code, Message: r.Error.Message}
		}
		got[string(r.ID)] = a
	}
	return got
}

// wantIDs is the set of ids, "" left out.
func wantIDs(ids []string) map[string]bool {
	want := map[string]bool{}
	for _, id := range ids {
		if id != "" {
			want[id] = true
		}
	}
	return want
}

// sseReply is a reply read off an SSE stream (or stdio).
type sseReply struct {
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// answers reads the stream until it has a reply for each id (raw JSON; ""
// is skipped), and fails on a reply to anything else, or when the replies
// do not come within 10 s (the stream is closed then).
func (c *sseTestSession) answers(t *testing.T, ids ...string) map[string]sseReply {
	t.Helper()
	stop := time.AfterFunc(10*time.Second, func() { c.body.Close() })
	defer stop.Stop()
	want := wantIDs(ids)
	got := map[string]sseReply{}
	for len(want) > 0 {
		ev, err := c.r.next()
		if err != nil {
			t.Fatalf("reading the stream: %v (waiting for the replies to %v)", err, want)
		}
		if ev.name != "message" {
			continue
		}
		var m struct {
			ID json.RawMessage `json:"id"`
			sseReply
		}
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
			t.Fatalf("event %q: %v", ev.data, err)
		}
		if !want[string(m.ID)] {
			t.Fatalf("unexpected message on the stream: %s", ev.data)
		}
		delete(want, string(m.ID))
		got[string(m.ID)] = m.sseReply
	}
	return got
}

// TestHTTPSSERefusedOverHTTP: what cannot be answered on the stream (no
// JSON-RPC message, or none with an id to answer under) gets an HTTP error
// saying what to send, and nothing on the stream; so does a request sent
// without an id, which the server would otherwise drop without a word.
func TestHTTPSSERefusedOverHTTP(t *testing.T) {
	e := startHTTP(t, HTTPOptions{MaxBodyBytes: 1 << 10})
	c := openSSEEndpoint(t, e)
	for _, tc := range []struct {
		name, url, body string
		hdr             map[string]string
		status          int
		want            string
	}{
		{"not JSON", c.url, `{"jsonrpc":`, nil, 400, "the body is not valid JSON: send one JSON-RPC 2.0 message per POST"},
		{"not UTF-8", c.url, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", nil, 400, "the body is not valid UTF-8"},
		{"empty", c.url, ``, nil, 400, "the body is not valid JSON"},
		{"batch", c.url, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 400, "batches are not supported"},
		{"no id, no method", c.url, `{"jsonrpc":"2.0"}`, nil, 400, "the body is not a JSON-RPC 2.0 message: "},
		{"null id", c.url, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, 400, `"id" must be a string or an integer, not null`},
		{"fractional id", c.url, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, nil, 400, `"id" must be a string or an integer, not 1.5`},
		{"request without an id", c.url, `{"jsonrpc":"2.0","method":"tools/list"}`, nil, 400, `"tools/list" was sent without an "id"`},
		{"body too large", c.url, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", 2<<10) + `"}}`, nil, 413, "the limit"},
		{"wrong content type", c.url, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Content-Type": "text/plain"}, 415, "Content-Type: application/json"},
		{"unknown session", e.base + "/messages?session_id=nope", `{"jsonrpc":"2.0","id":1,"method":"nope"}`, nil, 404, "session not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPost(t, tc.url, tc.body, tc.hdr)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) {
				t.Fatalf("POST %.80s: %s %q, want %d with %q", tc.body, resp.Status, b, tc.status, tc.want)
			}
		})
	}
	// Nothing went to the stream: the next message is the answer to this.
	postSSE(t, c.url, `{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	c.answers(t, `"last"`)
}

// sseTestSession is a legacy SSE session opened by hand: its stream and
// the URL of its endpoint.
type sseTestSession struct {
	r    *sseReader
	body io.Closer
	url  string
}

// openSSEEndpoint opens a legacy SSE session by hand: GET /sse, its
// endpoint event. Tests that post from subtests use it with postSSE and
// the subtest's t; openSSE wraps it.
func openSSEEndpoint(t *testing.T, e *httpEnv) *sseTestSession {
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
	return &sseTestSession{r: r, body: resp.Body, url: e.base + ev.data}
}

// postSSE POSTs a message to an SSE session's endpoint and fails unless it
// is accepted (202).
func postSSE(t *testing.T, url, body string) {
	t.Helper()
	if resp := rawPost(t, url, body, nil); resp.StatusCode != http.StatusAccepted {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %s %q, want 202", body, resp.Status, b)
	}
}
