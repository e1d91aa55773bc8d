package host

import (
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
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
)

// offlineHotList is the recorded response of the offline tests' hot list.
const offlineHotList = `{"update_time": "2025-04-25 16:36:39", "data": [
  {"index": 1, "title": "神舟二十号发射圆满成功", "hot": "789.5万"},
  {"index": 2, "title": "全国多地迎来降雨", "hot": "765.1万"},
  {"index": 3, "title": "新能源汽车销量创新高", "hot": "701.3万"},
  {"index": 4, "title": "五一假期出行预测", "hot": "652.0万"}
]}`

// offlineConfig writes a config with http tools whose upstreams are
// upstream (a server that counts requests) and closed (a port nothing
// listens on), an exec tool and a resource served over http, and returns
// its path.
func offlineConfig(t *testing.T, upstream, closed string) string {
	t.Helper()
	dir := t.TempDir()
	src := fmt.Sprintf(`
tool "hotlist" {
  param "limit" {
    type    = integer
    default = 10
  }
  http {
    url = "%[1]s/hot"
  }
  result {
    field "topics" {
      path = "data.#(index<=${param.limit})#.title"
      type = list(string)
    }
  }
  example "three" {
    args     = { limit = 3 }
    response = file("hot.json")
    result   = { topics = ["神舟二十号发射圆满成功", "全国多地迎来降雨", "新能源汽车销量创新高"] }
  }
  example "one" {
    args     = { limit = 1 }
    response = file("hot.json")
    result   = { topics = ["神舟二十号发射圆满成功"] }
  }
}

tool "closed" {
  http {
    url = "%[2]s/"
  }
  example "recorded" {
    response = "recorded text"
    result   = "recorded text"
  }
}

tool "bare" {
  http {
    url = "%[1]s/bare"
  }
}

tool "local" {
  exec {
    %[3]s
  }
}

resource "status" {
  uri = "status://now"
  http {
    url = "%[1]s/status"
  }
}
`, upstream, closed, helperCommand(`"echo"`, `"live"`))
	for name, body := range map[string]string{"tools.hcl": src, "hot.json": offlineHotList} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "tools.hcl")
}

// countingUpstream is a loopback server that counts the requests it gets,
// and a URL on which nothing listens.
func countingUpstream(t *testing.T) (upstream, closed string, hits *atomic.Int64) {
	t.Helper()
	hits = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data": [{"index": 1, "title": "live"}]}`)
	}))
	t.Cleanup(srv.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed = "http://" + ln.Addr().String()
	ln.Close()
	return srv.URL, closed, hits
}

// loadOffline loads the config at path as serve --offline does.
func loadOffline(t *testing.T, path string) *Registry {
	t.Helper()
	reg, diags := Load([]string{path}, &thcl.Options{Offline: true})
	if diags.HasErrors() {
		t.Fatal(thcl.FormatDiagnostics(diags))
	}
	t.Cleanup(func() { _ = reg.Close() })
	return reg
}

// offlineReply is a tools/call result as a client reads it.
type offlineReply struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage            `json:"structuredContent"`
	IsError           bool                       `json:"isError"`
	Meta              map[string]json.RawMessage `json:"_meta"`
}

// TestServeOfflineStdio serves a config offline over stdio, as serve
// --offline does: its http tools answer from their examples (the one
// whose arguments are the call's, else the first), through their result
// mapping with the call's arguments, marked in _meta; one without an
// example says how to add one; the exec tool runs. No request reaches the
// upstream, and the tool whose upstream is a closed port answers all the
// same; a resource served over http is refused. The same call made online reaches the upstream, so that the
// count is seen to count.
func TestServeOfflineStdio(t *testing.T) {
	upstream, closed, hits := countingUpstream(t)
	path := offlineConfig(t, upstream, closed)
	p := startStdio(t, loadOffline(t, path))
	p.initialize()
	tests := []struct {
		name, tool, args string
		// structured is the structuredContent wanted, text the text (of
		// a result without it, or within an error).
		structured, text string
		// meta is the offline _meta wanted; "" for none.
		meta string
	}{
		{name: "matching example", tool: "hotlist", args: `{"limit":1}`,
			structured: `{"topics":["神舟二十号发射圆满成功"]}`, meta: `{"argumentsMatched":true,"example":"one"}`},
		{name: "matching after defaults", tool: "hotlist", args: `{"limit":3}`,
			structured: `{"topics":["神舟二十号发射圆满成功","全国多地迎来降雨","新能源汽车销量创新高"]}`, meta: `{"argumentsMatched":true,"example":"three"}`},
		{name: "first example, mapped with the call's arguments", tool: "hotlist", args: `{}`,
			structured: `{"topics":["神舟二十号发射圆满成功","全国多地迎来降雨","新能源汽车销量创新高","五一假期出行预测"]}`, meta: `{"argumentsMatched":false,"example":"three"}`},
		{name: "closed upstream", tool: "closed", args: `{}`, text: "recorded text", meta: `{"argumentsMatched":true,"example":"recorded"}`},
		{name: "no example", tool: "bare", args: `{}`, text: `toolhost runs offline (--offline), so the tool "bare" answers from the recorded responses of its examples`},
		{name: "exec runs", tool: "local", args: `{}`, text: "live"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, tt.tool, tt.args))
			r := p.next()
			var res offlineReply
			if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
				t.Fatalf("reply %s", r.line)
			}
			if tt.structured != "" && (res.IsError || !jsonEqual(t, res.StructuredContent, []byte(tt.structured))) {
				t.Errorf("structuredContent %s (isError %v), want %s", res.StructuredContent, res.IsError, tt.structured)
			}
			if tt.text != "" && (len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, tt.text)) {
				t.Errorf("content %+v, want a text with %q", res.Content, tt.text)
			}
			if wantErr := tt.tool == "bare"; res.IsError != wantErr {
				t.Errorf("isError %v, want %v: %s", res.IsError, wantErr, r.line)
			}
			meta, ok := res.Meta[OfflineMetaKey]
			switch {
			case tt.meta == "" && ok:
				t.Errorf("_meta %s, want no %s", meta, OfflineMetaKey)
			case tt.meta != "" && (!ok || !jsonEqual(t, meta, []byte(tt.meta))):
				t.Errorf("_meta %s = %s, want %s", OfflineMetaKey, meta, tt.meta)
			}
		})
	}
	p.send(`{"jsonrpc":"2.0","id":99,"method":"resources/read","params":{"uri":"status://now"}}`)
	if r := p.next(); r.Error == nil || !strings.Contains(r.Error.Message, "reading status://now: toolhost runs offline (--offline), and this resource is read over the network") {
		t.Errorf("resources/read of an http resource offline: %s", r.line)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the upstream got %d requests offline, want 0", n)
	}

	online, diags := Load([]string{path}, nil)
	if diags.HasErrors() {
		t.Fatal(thcl.FormatDiagnostics(diags))
	}
	defer online.Close()
	res, err := online.CallTool(context.Background(), "hotlist", json.RawMessage(`{"limit":3}`))
	if err != nil || res.IsError || res.Meta[OfflineMetaKey] != nil {
		t.Fatalf("online call: %v %+v", err, res)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the upstream got %d requests from an online call, want 1", n)
	}
}

// TestServeOfflineHTTP serves a config offline over streamable HTTP, with
// sessions and without: the http tool answers from its example, marked,
// and the upstream gets no request.
func TestServeOfflineHTTP(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			upstream, closed, hits := countingUpstream(t)
			e := startHTTPRegistry(t, HTTPOptions{Stateless: stateless}, loadOffline(t, offlineConfig(t, upstream, closed)))
			cs := e.connect(nil, nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hotlist", Arguments: map[string]any{"limit": 1}})
			if err != nil || res.IsError {
				t.Fatalf("call: %v %+v", err, res)
			}
			got, _ := json.Marshal(res.StructuredContent)
			if !jsonEqual(t, got, []byte(`{"topics":["神舟二十号发射圆满成功"]}`)) {
				t.Errorf("structuredContent %s", got)
			}
			meta, _ := json.Marshal(res.Meta[OfflineMetaKey])
			if !jsonEqual(t, meta, []byte(`{"argumentsMatched":true,"example":"one"}`)) {
				t.Errorf("_meta %s = %s", OfflineMetaKey, meta)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the upstream got %d requests offline, want 0", n)
			}
		})
	}
}

// TestOfflineSummary checks what Offline and OfflineExamples report, which
// serve logs and inspect --offline shows, and that an example whose
// response cannot be read is left out with a warning at its place.
func TestOfflineSummary(t *testing.T) {
	upstream, closed, _ := countingUpstream(t)
	path := offlineConfig(t, upstream, closed)
	if err := os.Remove(filepath.Join(filepath.Dir(path), "hot.json")); err != nil {
		t.Fatal(err)
	}
	reg, diags := Load([]string{path}, &thcl.Options{Offline: true})
	if diags.HasErrors() {
		t.Fatal(thcl.FormatDiagnostics(diags))
	}
	defer reg.Close()
	if len(diags) != 2 || !strings.Contains(diags[0].Detail, `does not answer from the example "three"`) || diags[0].Subject == nil {
		t.Errorf("diagnostics: %s", thcl.FormatDiagnostics(diags))
	}
	s, ok := reg.Offline()
	want := OfflineSummary{Examples: []string{"hotlist", "closed", "bare"}, Missing: []string{"hotlist", "bare"}, Run: []string{"local"}}
	if !ok || fmt.Sprint(s) != fmt.Sprint(want) {
		t.Errorf("Offline() = %+v, %v; want %+v", s, ok, want)
	}
	if names, ok := reg.OfflineExamples("closed"); !ok || fmt.Sprint(names) != "[recorded]" {
		t.Errorf("OfflineExamples(closed) = %v, %v", names, ok)
	}
	online, _ := Load([]string{path}, nil)
	defer online.Close()
	if _, ok := online.Offline(); ok {
		t.Error("a registry loaded online says it is offline")
	}
}

// TestReloadOffline: a reload with the options serve --offline gives its
// Reloader keeps the config offline, with the new config's examples.
func TestReloadOffline(t *testing.T) {
	upstream, closed, hits := countingUpstream(t)
	path := offlineConfig(t, upstream, closed)
	opts := &thcl.Options{Offline: true}
	reg, diags := Load([]string{path}, opts)
	if diags.HasErrors() {
		t.Fatal(thcl.FormatDiagnostics(diags))
	}
	srv := NewServer(reg, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { srv.Registry().Retire() })
	r := &Reloader{Paths: []string{path}, Server: srv, Logger: slog.New(slog.DiscardHandler), Diagnostics: io.Discard, Options: opts}
	r.Prime(reg)
	added := fmt.Sprintf("\ntool \"added\" {\n  http { url = %q }\n  example \"new\" {\n    response = \"new text\"\n    result   = \"new text\"\n  }\n}\n", upstream+"/added")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(added)
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if res := r.Reload(context.Background()); !res.Applied {
		t.Fatalf("not applied: %+v", res)
	}
	now := srv.Registry()
	if names, ok := now.OfflineExamples("added"); !ok || fmt.Sprint(names) != "[new]" {
		t.Fatalf("after the reload, OfflineExamples(added) = %v, %v", names, ok)
	}
	res, err := now.CallTool(context.Background(), "added", nil)
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "new text" || res.Meta[OfflineMetaKey] == nil {
		t.Errorf("call after the reload: %v %+v", err, res)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the upstream got %d requests offline, want 0", n)
	}
}
