package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestHTTPOneShotAsSDK checks that a --stateless server answers the
// requests oneShot serves as the SDK's own stateless handler answers them:
// the same status, the same headers that matter to a client, and the same
// messages. The SDK's handler is the server's own (HTTPServer.streamable),
// served on a second loopback listener without toolhost's front end.
func TestHTTPOneShotAsSDK(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, httpFeatureConfig)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sdk := &http.Server{Handler: e.hs.streamable}
	go func() { _ = sdk.Serve(ln) }()
	t.Cleanup(func() { _ = sdk.Shutdown(context.Background()) })
	sdkURL := "http://" + ln.Addr().String() + "/mcp"

	for _, tc := range []struct {
		name, body string
		hdr        map[string]string
		oneShot    bool // oneShot serves it (else the SDK does, behind the front end)
	}{
		{"a call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"quick","arguments":{}}}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, true},
		{"a call that logs at warning", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"warning_log","arguments":{}}}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, true},
		{"a call that logs at info", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"info_log","arguments":{}}}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, true},
		{"a call that would confirm", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"delete_file","arguments":{}}}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, true},
		{"a call that confirms when it can", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"delete_allowed","arguments":{}}}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, true},
		{"a call of an older protocol, a string id", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"quick"}}`, map[string]string{"Mcp-Protocol-Version": "2025-03-26"}, true},
		{"a call without a version header", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quick","arguments":{}}}`, nil, true},
		{"a call of an unknown tool", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, true},
		{"tools/list", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, true},
		{"ping", `{"jsonrpc":"2.0","id":5,"method":"ping"}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, true},
		{"initialize", `{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, false},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, false},
		{"an unsupported version", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, map[string]string{"Mcp-Protocol-Version": "2020-01-01"}, false},
		{"2026-07-28: a call", newCall(21, "quick", meta2026), headers2026("tools/call", "quick"), true},
		{"2026-07-28: a call that logs at warning", newCall(22, "warning_log", meta2026), headers2026("tools/call", "warning_log"), true},
		{"2026-07-28: a call with client info and a log level", newCall(23, "info_log", `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/logLevel":"debug"`), headers2026("tools/call", "info_log"), true},
		{"2026-07-28: a call that would confirm", newCall(24, "delete_file", meta2026), headers2026("tools/call", "delete_file"), true},
		{"2026-07-28: a call of an unknown tool", newCall(25, "nope", meta2026), headers2026("tools/call", "nope"), true},
		{"2026-07-28: tools/list", `{"jsonrpc":"2.0","id":26,"method":"tools/list","params":{"_meta":{` + meta2026 + `}}}`, headers2026("tools/list", ""), true},
		{"2026-07-28: prompts/list", `{"jsonrpc":"2.0","id":27,"method":"prompts/list","params":{"_meta":{` + meta2026 + `}}}`, headers2026("prompts/list", ""), true},
		{"2026-07-28: no client capabilities (400)", newCall(28, "quick", `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`), headers2026("tools/call", "quick"), true},
		{"2026-07-28: client info not an object (400)", newCall(29, "quick", meta2026+`,"io.modelcontextprotocol/clientInfo":"t"`), headers2026("tools/call", "quick"), true},
		{"2026-07-28: a string id", strings.Replace(newCall(30, "quick", meta2026), `"id":30`, `"id":"x"`, 1), headers2026("tools/call", "quick"), true},
		{"2026-07-28: ping, removed", `{"jsonrpc":"2.0","id":31,"method":"ping","params":{"_meta":{` + meta2026 + `}}}`, headers2026("ping", ""), false},
		{"2026-07-28: no Mcp-Method", newCall(32, "quick", meta2026), map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Name": "quick"}, false},
		{"2026-07-28: Mcp-Method of another method", newCall(33, "quick", meta2026), headers2026("tools/list", "quick"), false},
		{"2026-07-28: no Mcp-Name", newCall(34, "quick", meta2026), headers2026("tools/call", ""), false},
		{"2026-07-28: Mcp-Name of another tool", newCall(35, "quick", meta2026), headers2026("tools/call", "warning_log"), false},
		{"2026-07-28: no _meta", `{"jsonrpc":"2.0","id":36,"method":"tools/call","params":{"name":"quick","arguments":{}}}`, headers2026("tools/call", "quick"), false},
		{"2026-07-28: _meta of another version", newCall(37, "quick", `"io.modelcontextprotocol/protocolVersion":"2026-08-01","io.modelcontextprotocol/clientCapabilities":{}`), headers2026("tools/call", "quick"), false},
		{"2026-07-28: Name, not name", `{"jsonrpc":"2.0","id":39,"method":"tools/call","params":{"Name":"quick","_meta":{` + meta2026 + `}}}`, headers2026("tools/call", "quick"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rawPost(t, e.base+"/mcp", tc.body, tc.hdr)
			want := rawPost(t, sdkURL, tc.body, tc.hdr)
			if got.StatusCode != want.StatusCode {
				t.Fatalf("status %d, the SDK's %d", got.StatusCode, want.StatusCode)
			}
			for _, h := range []string{"Content-Type", "Cache-Control", "Mcp-Session-Id"} {
				if got.Header.Get(h) != want.Header.Get(h) {
					t.Errorf("%s %q, the SDK's %q", h, got.Header.Get(h), want.Header.Get(h))
				}
			}
			g, w := oneShotMessages(t, got.Body), oneShotMessages(t, want.Body)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("messages\n%v\nthe SDK's\n%v", g, w)
			}
			// A 2026-07-28 client has log lines only at the level its
			// _meta asks for.
			logs := strings.Contains(tc.name, "logs at warning") && !strings.HasPrefix(tc.name, "2026") || strings.Contains(tc.name, "a log level")
			if logs != (len(g) == 2) {
				t.Errorf("%d messages, want the answer and a log line: %v", len(g), logs)
			}
			req, _ := http.NewRequest(http.MethodPost, e.base+"/mcp", nil)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.hdr {
				req.Header.Set(k, v)
			}
			req.Body = &readBody{data: []byte(tc.body)}
			if _, _, ok := e.hs.oneShotRequest(req); ok != tc.oneShot {
				t.Errorf("oneShotRequest took it: %v, want %v", ok, tc.oneShot)
			}
		})
	}
}

// meta2026 is the _meta (without its braces) of a request of a
// 2026-07-28 client with no capabilities.
const meta2026 = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

// newCall is a tools/call of tool, without arguments, with id and the
// _meta meta (without its braces).
func newCall(id int, tool, meta string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},"_meta":{` + meta + `}}}`
}

// headers2026 are the headers of a 2026-07-28 request of method, and of
// name when it is not "".
func headers2026(method, name string) map[string]string {
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

// oneShotMessages reads the JSON-RPC messages of an answer: its SSE
// events' data, or a JSON body.
func oneShotMessages(t *testing.T, body io.Reader) []map[string]any {
	t.Helper()
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	r := newSSEReader(bytes.NewReader(data))
	for {
		ev, err := r.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		if json.Unmarshal([]byte(ev.data), &m) != nil {
			m["text"] = ev.data
		}
		out = append(out, m)
	}
	if len(out) == 0 && len(data) > 0 {
		out = append(out, map[string]any{"body": string(data)})
	}
	return out
}

// TestOneShotErrRejected checks that the SDK's error for an undelivered
// message was found: without it, a one-shot connection's refusals would
// end its session.
func TestOneShotErrRejected(t *testing.T) {
	c := &oneShotConn{req: &jsonrpc.Request{Method: "ping"}, closed: make(chan struct{})}
	id, _ := jsonrpc.MakeID(int64(9))
	err := c.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "roots/list"})
	if err == nil || !errors.Is(err, errRejected()) || errRejected().Error() == "message not delivered" {
		t.Fatalf("a request to the client: %v, want the SDK's rejection", err)
	}
}
