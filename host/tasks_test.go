package host

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/internal/tasks"
)

// taskWire is a client of the tasks extension over one transport: call
// sends a request and returns its result or its error's code and message.
type taskWire interface {
	call(t *testing.T, method string, params map[string]any) (res map[string]any, code int64, msg string)
}

// httpTaskWire sends 2026-07-28 requests to a stateless HTTP server,
// declaring the tasks extension in each request's _meta when ext is set;
// with session set, it sends the requests of that session instead.
type httpTaskWire struct {
	e       *httpEnv
	ext     bool
	session map[string]string
	// token, when set, is sent as a bearer token.
	token string
}

// sessionCallIDs numbers the requests httpTaskWire sends in sessions.
var sessionCallIDs atomic.Int64

func (w httpTaskWire) call(t *testing.T, method string, params map[string]any) (map[string]any, int64, string) {
	t.Helper()
	if w.session != nil {
		// A new id for each request of a session, as the spec asks: an id
		// the server has answered may still be in flight for it for a
		// moment, until its POST has ended.
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": sessionCallIDs.Add(1), "method": method, "params": params})
		return httpOutcome(t, method, rawPost(t, w.e.base+"/mcp", string(body), w.session))
	}
	caps := map[string]any{}
	if w.ext {
		caps["extensions"] = map[string]any{tasks.ExtensionID: map[string]any{}}
		caps["elicitation"] = map[string]any{}
	}
	p := map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "1"},
	}}
	for k, v := range params {
		p[k] = v
	}
	name, _ := params["name"].(string)
	if id, ok := params["taskId"].(string); ok {
		name = id
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
	hdr := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if w.token != "" {
		hdr["Authorization"] = "Bearer " + w.token
	}
	if name != "" {
		hdr["Mcp-Name"] = name
	}
	return httpOutcome(t, method, rawPost(t, w.e.base+"/mcp", string(body), hdr))
}

// httpOutcome reads the answer to a request, as JSON or an event stream.
func httpOutcome(t *testing.T, method string, resp *http.Response) (map[string]any, int64, string) {
	t.Helper()
	var m map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		m = newSSEReader(resp.Body).message(t)
	} else if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("%s: %s, body not JSON: %v", method, resp.Status, err)
	}
	return rpcOutcome(m)
}

// stdioTaskWire sends requests to a stdio server whose initialize declared
// the tasks extension (or not).
type stdioTaskWire struct {
	p  *stdioPeer
	id *atomic.Int64
}

func (w stdioTaskWire) call(t *testing.T, method string, params map[string]any) (map[string]any, int64, string) {
	t.Helper()
	id := w.id.Add(1)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	w.p.send(string(body))
	r := w.p.next()
	if string(r.ID) != strconv.FormatInt(id, 10) {
		t.Fatalf("reply to %d: %s", id, r.line)
	}
	var m map[string]any
	_ = json.Unmarshal([]byte(r.line), &m)
	return rpcOutcome(m)
}

// rpcOutcome splits a JSON-RPC response into its result or error.
func rpcOutcome(m map[string]any) (map[string]any, int64, string) {
	if e, ok := m["error"].(map[string]any); ok {
		code, _ := e["code"].(float64)
		msg, _ := e["message"].(string)
		return nil, int64(code), msg
	}
	res, _ := m["result"].(map[string]any)
	return res, 0, ""
}

// TestTaskSupportListed: tools/list shows execution.taskSupport for the
// tools with task support, and nothing for the others.
func TestTaskSupportListed(t *testing.T) {
	src := `
tool "plain" {
  template {
    text = "plain"
  }
}
tool "maybe" {
  task = "optional"
  template {
    text = "maybe"
  }
}
tool "always" {
  task = "required"
  template {
    text = "always"
  }
}
`
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, src)
	w := httpTaskWire{e: e, ext: true}
	res, code, msg := w.call(t, "tools/list", map[string]any{})
	if code != 0 {
		t.Fatalf("tools/list: %d %s", code, msg)
	}
	got := map[string]any{}
	for _, tool := range res["tools"].([]any) {
		m := tool.(map[string]any)
		got[m["name"].(string)] = m["execution"]
	}
	want := map[string]any{
		"plain":  nil,
		"maybe":  map[string]any{"taskSupport": "optional"},
		"always": map[string]any{"taskSupport": "required"},
	}
	for name, exec := range want {
		g, _ := json.Marshal(got[name])
		w, _ := json.Marshal(exec)
		if string(g) != string(w) {
			t.Errorf("%s: execution %s, want %s", name, g, w)
		}
	}
	if res["resultType"] != "complete" {
		t.Errorf("resultType %v, want complete", res["resultType"])
	}
}
