package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listenConfig is what the config of TestHTTPListenNotifications says,
// and what its reloads change: how many tools and prompts it has, and the
// descriptions of two resources read from files and of a resource template
// serving a directory.
type listenConfig struct {
	tools, prompts  int
	one, two, notes string
}

// source is the config c, with the resources' files in dir.
func (c listenConfig) source(dir string) string {
	var b strings.Builder
	for i := range c.tools {
		fmt.Fprintf(&b, "tool \"t%d\" {\n  description = \"t\"\n  template { text = \"t\" }\n}\n", i)
	}
	for i := range c.prompts {
		fmt.Fprintf(&b, "prompt \"p%d\" {\n  description = \"p\"\n  message \"user\" {\n    text = \"p\"\n  }\n}\n", i)
	}
	for _, r := range []struct{ name, desc string }{{"one", c.one}, {"two", c.two}} {
		fmt.Fprintf(&b, "resource %q {\n  uri         = \"docs://%[1]s\"\n  description = %q\n  file        = %q\n}\n", r.name, r.desc, filepath.Join(dir, r.name+".txt"))
	}
	fmt.Fprintf(&b, "resource_template \"notes\" {\n  uri_template = \"notes:///{path}\"\n  description  = %q\n  dir          = %q\n}\n", c.notes, filepath.Join(dir, "notes"))
	return b.String()
}

// listenStream is an open subscriptions/listen stream. A goroutine reads
// its messages into msgs, so that a test can also wait for one a while
// (drain).
type listenStream struct {
	name string
	id   int
	msgs chan listenMessage
}

// listenMessage is a message a listenStream read, or the error that ended
// the stream.
type listenMessage struct {
	m   map[string]any
	err error
}

// pump reads r's messages into msgs until the stream ends.
func (s *listenStream) pump(r *sseReader) {
	defer close(s.msgs)
	for {
		ev, err := r.next()
		if err != nil {
			s.msgs <- listenMessage{err: err}
			return
		}
		if ev.name != "message" && ev.name != "" {
			continue
		}
		m := map[string]any{}
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
			s.msgs <- listenMessage{err: fmt.Errorf("event data is not JSON: %q", ev.data)}
			return
		}
		s.msgs <- listenMessage{m: m}
	}
}

// openListenStream opens a subscriptions/listen stream with JSON-RPC ID
// id asking for notifications (the members of the request's
// "notifications"), and checks that its first message acknowledges it,
// tagged with id. A stream still open after a minute is cut, so that a
// test that waits for a message that never comes fails rather than hangs.
func openListenStream(t *testing.T, e *httpEnv, name string, id int, notifications string) *listenStream {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"notifications":{` + notifications + `}}}`
	resp := rawPost(t, e.base+"/mcp", body, listenHeaders)
	cut := time.AfterFunc(time.Minute, func() { resp.Body.Close() })
	t.Cleanup(func() { cut.Stop() })
	s := &listenStream{name: name, id: id, msgs: make(chan listenMessage, 64)}
	go s.pump(newSSEReader(resp.Body))
	if got := s.next(t); got != "notifications/subscriptions/acknowledged" {
		t.Fatalf("stream %s: the first message is %s, want the acknowledgement", name, got)
	}
	return s
}

// next reads the stream's next message, checks that it is a notification
// tagged with the stream's subscription ID, and returns its method, with
// the URI for resources/updated ("notifications/resources/updated
// docs://one").
func (s *listenStream) next(t *testing.T) string {
	t.Helper()
	lm, ok := <-s.msgs // the stream is cut after a minute
	if !ok || lm.err != nil {
		t.Fatalf("stream %s: reading the stream: %v", s.name, lm.err)
	}
	return s.method(t, lm.m)
}

// drain reads the messages the stream has brought and not yet been
// read, without waiting for more: each must be a notification (see
// next) that is one of allowed, or the test fails.
func (s *listenStream) drain(t *testing.T, allowed []string) {
	t.Helper()
	for {
		select {
		case lm, ok := <-s.msgs:
			if !ok || lm.err != nil {
				t.Fatalf("stream %s: reading the stream: %v", s.name, lm.err)
			}
			if m := s.method(t, lm.m); !slices.Contains(allowed, m) {
				t.Fatalf("stream %s: then %s, which it was not to get", s.name, m)
			}
		default:
			return
		}
	}
}

// method checks that m is a notification tagged with the stream's
// subscription ID, and returns its method (see next).
func (s *listenStream) method(t *testing.T, m map[string]any) string {
	t.Helper()
	method, _ := m["method"].(string)
	params, _ := m["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	if _, isCall := m["id"]; isCall || method == "" {
		t.Fatalf("stream %s: %v, want a notification", s.name, m)
	}
	if id, _ := meta["io.modelcontextprotocol/subscriptionId"].(float64); id != float64(s.id) {
		t.Fatalf("stream %s: %v is tagged with subscription %v, want %d", s.name, m, meta["io.modelcontextprotocol/subscriptionId"], s.id)
	}
	if uri, ok := params["uri"].(string); ok {
		method += " " + uri
	}
	return method
}

// listenSettle is how long after a step TestHTTPListenNotifications lets
// its streams bring a second list_changed of the step's, or a message
// they were not to get, before it reads what they brought.
const listenSettle = 150 * time.Millisecond

// TestHTTPListenNotifications: a subscriptions/listen stream (2026-07-28,
// stateless: each stream is a session of its own) is acknowledged first,
// then gets, tagged with its subscription ID, the list_changed
// notifications of the kinds it asked for when a reload changes those
// lists, and resources/updated for the URIs it listed; nothing else. Each
// step reloads a change and reads, from every stream, the messages it
// should bring: a message a stream was sent by mistake at a step comes
// before those of a later step, and fails it.
func TestHTTPListenNotifications(t *testing.T) {
	// The modes that serve the 2026-07-28 protocol over HTTP.
	for _, mode := range []struct {
		name string
		opts HTTPOptions
	}{
		{"stateless", HTTPOptions{Stateless: true}},
		{"sessions", HTTPOptions{}},
	} {
		t.Run(mode.name, func(t *testing.T) { testListenNotifications(t, mode.opts) })
	}
}

// testListenNotifications is TestHTTPListenNotifications in one mode.
func testListenNotifications(t *testing.T, opts HTTPOptions) {
	dir := t.TempDir()
	for _, name := range []string{"one.txt", "two.txt", "notes/a.md"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := startHTTPConfig(t, opts, listenConfig{1, 1, "one", "two", "notes"}.source(dir))
	reg := e.srv.Registry()
	r := &Reloader{Paths: reg.Config.Paths, Server: e.srv, Logger: slog.New(slog.DiscardHandler), Diagnostics: io.Discard}
	r.Prime(reg)

	const (
		toolsChanged     = "notifications/tools/list_changed"
		promptsChanged   = "notifications/prompts/list_changed"
		resourcesChanged = "notifications/resources/list_changed"
		oneUpdated       = "notifications/resources/updated docs://one"
		twoUpdated       = "notifications/resources/updated docs://two"
		noteUpdated      = "notifications/resources/updated notes:///a.md"
	)
	streams := []*listenStream{
		openListenStream(t, e, "tools", 11, `"toolsListChanged":true`),
		openListenStream(t, e, "prompts", 12, `"promptsListChanged":true`),
		openListenStream(t, e, "resources", 13, `"resourcesListChanged":true,"resourceSubscriptions":["docs://one"]`),
		openListenStream(t, e, "two", 14, `"resourceSubscriptions":["docs://two"]`),
		openListenStream(t, e, "note", 15, `"resourceSubscriptions":["notes:///a.md"]`),
		openListenStream(t, e, "all", 16, `"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["docs://one","docs://two","notes:///a.md"]`),
	}
	steps := []struct {
		name   string
		config listenConfig
		want   map[string][]string // by stream name
	}{
		{"tool added", listenConfig{2, 1, "one", "two", "notes"}, map[string][]string{
			"tools": {toolsChanged}, "all": {toolsChanged}}},
		{"prompt added", listenConfig{2, 2, "one", "two", "notes"}, map[string][]string{
			"prompts": {promptsChanged}, "all": {promptsChanged}}},
		{"resource two changed", listenConfig{2, 2, "one", "two'", "notes"}, map[string][]string{
			"resources": {resourcesChanged}, "two": {twoUpdated}, "all": {resourcesChanged, twoUpdated}}},
		{"resource one changed", listenConfig{2, 2, "one'", "two'", "notes"}, map[string][]string{
			"resources": {oneUpdated, resourcesChanged}, "all": {oneUpdated, resourcesChanged}}},
		{"template changed", listenConfig{2, 2, "one'", "two'", "notes'"}, map[string][]string{
			"resources": {resourcesChanged}, "note": {noteUpdated}, "all": {noteUpdated, resourcesChanged}}},
		{"tool removed", listenConfig{1, 2, "one'", "two'", "notes'"}, map[string][]string{
			"tools": {toolsChanged}, "all": {toolsChanged}}},
		{"everything changed", listenConfig{2, 1, "one", "two", "notes"}, map[string][]string{
			"tools": {toolsChanged}, "prompts": {promptsChanged}, "resources": {oneUpdated, resourcesChanged},
			"two": {twoUpdated}, "note": {noteUpdated}, "all": {toolsChanged, promptsChanged, oneUpdated, twoUpdated, noteUpdated, resourcesChanged}}},
	}
	for _, step := range steps {
		ok := t.Run(step.name, func(t *testing.T) {
			if err := os.WriteFile(reg.Config.Paths[0], []byte(step.config.source(dir)), 0o644); err != nil {
				t.Fatal(err)
			}
			if res := r.Reload(context.Background()); !res.Applied {
				t.Fatalf("the reload was not applied: %+v", res)
			}
			for _, s := range streams {
				want := slices.Sorted(slices.Values(step.want[s.name]))
				var got []string
				for range want {
					got = append(got, s.next(t))
				}
				// The order of notifications of different kinds is
				// not fixed: resources/updated is sent as the reload
				// applies, list_changed a moment later.
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("stream %s got %q, want %q", s.name, got, want)
				}
			}
			// The SDK sends a list_changed 10 ms after the last change
			// of its kind: on a slow machine the removal and the
			// addition one reload applies may come more than 10 ms
			// apart and give two. A second of the step's own is let
			// through, anything else fails the step.
			time.Sleep(listenSettle)
			for _, s := range streams {
				s.drain(t, slices.DeleteFunc(slices.Clone(step.want[s.name]), func(m string) bool { return !strings.HasSuffix(m, "/list_changed") }))
			}
		})
		if !ok {
			break // the streams are behind: later steps would fail for it
		}
	}
}
