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
			if logs := strings.Contains(tc.name, "logs at warning"); logs != (len(g) == 2) {
				t.Errorf("%d messages, want the answer and a log line: %v", len(g), logs)
			}
			req, _ := http.NewRequest(http.MethodPost, e.base+"/mcp", nil)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.hdr {
				req.Header.Set(k, v)
			}
			req.Body = &readBody{data: []byte(tc.body)}
			if _, _, ok := oneShotRequest(req); ok != tc.oneShot {
				t.Errorf("oneShotRequest took it: %v, want %v", ok, tc.oneShot)
			}
		})
	}
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
