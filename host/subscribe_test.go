package host

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// subscribeConfig serves a file, a directory through a simple and a
// reserved template, a template whose exec backend refuses some values by
// itself, and a template backend that takes any value. %s is the
// directory of the files (subscribeFiles).
var subscribeConfig = `
resource "report" {
  uri  = "docs://report"
  file = %[1]q
}
resource_template "notes" {
  uri_template = "notes:///{path}"
  dir          = %[2]q
}
resource_template "tree" {
  uri_template = "tree://{+path}"
  dir          = %[2]q
}
resource_template "man" {
  uri_template = "man:///{page}"
  exec {
    ` + helperCommand(`"echo"`, `param.page`) + `
  }
}
resource_template "echo" {
  uri_template = "echo://{v}"
  template { text = param.v }
}
`

// subscribeSource is subscribeConfig with its files written in a new
// temporary directory.
func subscribeSource(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"report.md": "r", "notes/a.md": "a", "notes/sub/b.md": "b", "secret": "s"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf(subscribeConfig, filepath.Join(dir, "report.md"), filepath.Join(dir, "notes"))
}

// sdkSubscribedURIs counts the URIs the SDK keeps a list of subscribed
// sessions for. It reads the SDK's own map, unexported, under the SDK's
// own lock: the SDK forgets an ended session but kept the URIs it had
// subscribed to, which is what this checks.
func sdkSubscribedURIs(t *testing.T, srv *Server) int {
	t.Helper()
	v := reflect.ValueOf(srv.mcp).Elem()
	f, mu := v.FieldByName("resourceSubscriptions"), v.FieldByName("mu")
	if !f.IsValid() || f.Kind() != reflect.Map || !mu.IsValid() || mu.Type() != reflect.TypeFor[sync.Mutex]() {
		t.Fatal("the SDK's Server has no map resourceSubscriptions under a mutex mu any more: check how it keeps subscriptions, and whether an ended session's are dropped")
	}
	lock := (*sync.Mutex)(unsafe.Pointer(mu.UnsafeAddr()))
	lock.Lock()
	defer lock.Unlock()
	return f.Len()
}

// subscriptionCounts is what a server holds of subscriptions: toolhost's
// count, the sessions it follows, and the URIs in the SDK's lists.
type subscriptionCounts struct{ subs, sessions, sdkURIs int }

func countSubscriptions(t *testing.T, srv *Server) subscriptionCounts {
	t.Helper()
	srv.subsMu.Lock()
	defer srv.subsMu.Unlock()
	return subscriptionCounts{srv.nsubs, len(srv.subs), sdkSubscribedURIs(t, srv)}
}

// waitSubscriptions waits until the server holds want.
func waitSubscriptions(t *testing.T, srv *Server, want subscriptionCounts) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := countSubscriptions(t, srv)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server holds %+v subscriptions, want %+v", got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// subscribeLine is a resources/subscribe request.
func subscribeLine(id int, uri string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"resources/subscribe","params":{"uri":` + strconv.Quote(uri) + `}}`
}

// TestSubscribeRefused: resources/subscribe takes a URI that names
// something to read: a declared resource, a file of a template's
// directory, a value a template's backend does not refuse by itself. Any
// other URI, and a URI over maxResourceURI in any request, is refused with
// an error that quotes the URI shortened and says what to send instead.
// Subscriptions were taken for any URI a template matched, existing or not,
// and of any length.
func TestSubscribeRefused(t *testing.T) {
	p := startStdio(t, loadSource(t, subscribeSource(t)))
	p.initialize()
	long := "echo://" + strings.Repeat("x", maxResourceURI)
	tests := []struct {
		name, line string
		code       int64
		want       string
	}{
		{"declared resource", subscribeLine(0, "docs://report"), 0, ""},
		{"file of a directory", subscribeLine(0, "notes:///a.md"), 0, ""},
		{"file in a subfolder", subscribeLine(0, "tree://sub/b.md"), 0, ""},
		{"value of a backend", subscribeLine(0, "echo://anything"), 0, ""},
		{"value of an exec backend", subscribeLine(0, "man:///ls"), 0, ""},
		{"the longest URI", subscribeLine(0, long[:maxResourceURI]), 0, ""},
		{"undeclared", subscribeLine(0, "docs://other"), mcp.CodeResourceNotFound, `cannot subscribe to "docs://other": no resource has this URI and no resource template matches it; subscribe to a URI that resources/list gives`},
		{"unknown scheme", subscribeLine(0, "nothing://x"), mcp.CodeResourceNotFound, "no resource template matches it"},
		// A file may be subscribed to before it is made: its making is told.
		{"a file not made yet", subscribeLine(0, "notes:///missing.md"), 0, ""},
		{"outside the directory", subscribeLine(0, "tree://../secret"), mcp.CodeResourceNotFound, `resource template "tree" cannot serve a file called "../secret"`},
		{"encoded outside", subscribeLine(0, "notes:///..%2Fsecret"), mcp.CodeResourceNotFound, `its path is not a value resource template "notes" serves`},
		{"encoded NUL", subscribeLine(0, "notes:///a.md%00"), mcp.CodeResourceNotFound, "is not a value"},
		{"bad escape", subscribeLine(0, "notes:///a%zz"), mcp.CodeResourceNotFound, "is not a value"},
		{"slash in a simple variable", subscribeLine(0, "notes:///sub/b.md"), mcp.CodeResourceNotFound, "no resource template matches it"},
		{"directory", subscribeLine(0, "tree://sub"), mcp.CodeResourceNotFound, `cannot serve a file called "sub"`},
		{"refused by exec", subscribeLine(0, "man:///-rf"), mcp.CodeResourceNotFound, `resource template "man" refuses its page`},
		{"too long", subscribeLine(0, long), jsonrpc.CodeInvalidParams, `invalid params of resources/subscribe: "uri" is 8199 bytes long, longer than the 8192 bytes toolhost takes for a resource URI ("echo://xxx`},
		{"too long, read", `{"jsonrpc":"2.0","id":0,"method":"resources/read","params":{"uri":"` + long + `"}}`, jsonrpc.CodeInvalidParams, `invalid params of resources/read: "uri" is 8199 bytes long`},
		{"too long, unsubscribe", `{"jsonrpc":"2.0","id":0,"method":"resources/unsubscribe","params":{"uri":"` + long + `"}}`, jsonrpc.CodeInvalidParams, `"uri" is 8199 bytes long`},
		{"too long, completion", `{"jsonrpc":"2.0","id":0,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"` + long + `"},"argument":{"name":"v","value":""}}}`, jsonrpc.CodeInvalidParams, `"ref.uri" is 8199 bytes long`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := strconv.Itoa(i + 1)
			p.send(strings.Replace(tt.line, `"id":0`, `"id":`+id, 1))
			r := p.next()
			if tt.code == 0 {
				if r.Error != nil || string(r.ID) != id {
					t.Fatalf("got %s, want a result", r.line)
				}
				return
			}
			wantError(t, r, id, tt.code, tt.want)
			if len(r.line) > 1000 {
				t.Fatalf("the error is %d bytes; it should quote the URI shortened: %.300s", len(r.line), r.line)
			}
		})
	}
	if got := countSubscriptions(t, p.srv); got.subs != 7 || got.sdkURIs != 7 {
		t.Fatalf("after 7 subscriptions accepted, the server holds %+v", got)
	}
}

// TestSubscribeSessionLimit: one session holds at most
// maxSessionSubscriptions subscriptions; the next is refused with an error
// that says so, a URI already subscribed to is not counted again, and
// unsubscribing makes room.
func TestSubscribeSessionLimit(t *testing.T) {
	p := startStdio(t, loadSource(t, subscribeSource(t)))
	p.initialize()
	// In rounds, so that neither pipe fills while the other waits.
	const round = 50
	for i := 0; i < maxSessionSubscriptions; i += round {
		for j := i; j < i+round; j++ {
			p.send(subscribeLine(j+1, fmt.Sprintf("echo://%d", j)))
		}
		for range round {
			if r := p.next(); r.Error != nil {
				t.Fatalf("subscribing within the limit: %s", r.line)
			}
		}
	}
	id := maxSessionSubscriptions + 1
	step := func(line string, code int64, want string) {
		t.Helper()
		id++
		p.send(strings.Replace(line, `"id":0`, `"id":`+strconv.Itoa(id), 1))
		r := p.next()
		if code == 0 {
			if r.Error != nil {
				t.Fatalf("got %s, want a result", r.line)
			}
			return
		}
		wantError(t, r, strconv.Itoa(id), code, want)
	}
	step(subscribeLine(0, "echo://one-more"), jsonrpc.CodeInvalidRequest,
		`cannot subscribe to "echo://one-more": this session is subscribed to 1000 resources, as many as toolhost allows one session; unsubscribe`)
	step(subscribeLine(0, "echo://7"), 0, "")
	step(`{"jsonrpc":"2.0","id":0,"method":"resources/unsubscribe","params":{"uri":"echo://7"}}`, 0, "")
	step(`{"jsonrpc":"2.0","id":0,"method":"resources/unsubscribe","params":{"uri":"echo://7"}}`, 0, "")
	step(subscribeLine(0, "echo://one-more"), 0, "")
	step(subscribeLine(0, "echo://two-more"), jsonrpc.CodeInvalidRequest, "as many as toolhost allows one session")
	if got := countSubscriptions(t, p.srv); got != (subscriptionCounts{maxSessionSubscriptions, 1, maxSessionSubscriptions}) {
		t.Fatalf("the server holds %+v", got)
	}
}

// TestStdioSubscriptionsFreedAtEnd: when stdin closes, the session's
// subscriptions are dropped, toolhost's and the SDK's.
func TestStdioSubscriptionsFreedAtEnd(t *testing.T) {
	p := startStdio(t, loadSource(t, subscribeSource(t)))
	p.initialize()
	for i, uri := range []string{"docs://report", "notes:///a.md", "echo://" + strings.Repeat("y", 8000)} {
		p.send(subscribeLine(i+1, uri))
		if r := p.next(); r.Error != nil {
			t.Fatalf("subscribe: %s", r.line)
		}
	}
	if got := countSubscriptions(t, p.srv); got != (subscriptionCounts{3, 1, 3}) {
		t.Fatalf("after 3 subscriptions, the server holds %+v", got)
	}
	p.in.Close()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end with its stdin")
	}
	waitSubscriptions(t, p.srv, subscriptionCounts{})
}

// subscribeBatch subscribes an HTTP session (of protocol 2025-03-26, which
// has batches) to uris in one POST, and returns the replies' errors by
// URI; nil for those accepted.
func subscribeBatch(t *testing.T, e *httpEnv, hdr map[string]string, uris []string) map[string]*jsonrpc.Error {
	t.Helper()
	var b strings.Builder
	b.WriteByte('[')
	for i, uri := range uris {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(subscribeLine(i+1, uri))
	}
	b.WriteByte(']')
	resp := rawPost(t, e.base+"/mcp", b.String(), hdr)
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("subscribing: %s %s", resp.Status, body)
	}
	r := newSSEReader(resp.Body)
	errs := map[string]*jsonrpc.Error{}
	for range uris {
		m := r.message(t)
		raw, _ := json.Marshal(m)
		var reply struct {
			ID    int
			Error *jsonrpc.Error
		}
		if err := json.Unmarshal(raw, &reply); err != nil || reply.ID < 1 || reply.ID > len(uris) {
			t.Fatalf("reply %s", raw)
		}
		errs[uris[reply.ID-1]] = reply.Error
	}
	return errs
}

// longURIs makes n URIs of echoConfig's template, each about size bytes.
func longURIs(prefix string, n, size int) []string {
	uris := make([]string, n)
	for i := range uris {
		s := fmt.Sprintf("echo://%s-%d-", prefix, i)
		uris[i] = s + strings.Repeat("u", size-len(s))
	}
	return uris
}

// TestHTTPSubscriptionsFreedWithSession: the subscriptions of an HTTP
// session, however it ends (DELETE, the idle timeout), are dropped,
// toolhost's and the URIs the SDK kept for it; those of another session
// stay, a URI both follow too. Before, subscriptions to long URIs grew a
// session's memory without bound, and it was still held after its DELETE.
func TestHTTPSubscriptionsFreedWithSession(t *testing.T) {
	for _, end := range []string{"DELETE", "idle timeout"} {
		t.Run(end, func(t *testing.T) {
			opts := HTTPOptions{}
			if end == "idle timeout" {
				opts.SessionIdleTimeout = time.Second
			}
			e := startHTTPConfig(t, opts, subscribeSource(t))
			stay := rawSession(t, e, "2025-03-26")
			if end == "idle timeout" {
				// The other session stays active; this one is left idle
				// once subscribed.
				keepActive(t, e, stay)
			}
			shared := "echo://shared"
			for uri, err := range subscribeBatch(t, e, stay, []string{shared, "docs://report"}) {
				if err != nil {
					t.Fatalf("subscribe %s: %v", uri, err)
				}
			}
			gone := rawSession(t, e, "2025-03-26")
			uris := append(longURIs("gone", 300, maxResourceURI), shared)
			for uri, err := range subscribeBatch(t, e, gone, uris) {
				if err != nil {
					t.Fatalf("subscribe %.40s...: %v", uri, err)
				}
			}
			if got := countSubscriptions(t, e.srv); got != (subscriptionCounts{303, 2, 302}) {
				t.Fatalf("after 303 subscriptions over 2 sessions, the server holds %+v", got)
			}
			if end == "DELETE" {
				if resp := rawDelete(t, e, gone); resp.StatusCode != http.StatusNoContent {
					t.Fatalf("DELETE: %s", resp.Status)
				}
			}
			waitSubscriptions(t, e.srv, subscriptionCounts{2, 1, 2})
			if resp := rawDelete(t, e, stay); resp.StatusCode != http.StatusNoContent {
				t.Fatalf("DELETE: %s", resp.Status)
			}
			waitSubscriptions(t, e.srv, subscriptionCounts{})
		})
	}
}

// keepActive pings a session every tenth of a second until the test ends,
// so that its idle timeout does not close it.
func keepActive(t *testing.T, e *httpEnv, hdr map[string]string) {
	stop := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() { close(stop); <-done })
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			req, _ := http.NewRequest(http.MethodPost, e.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	}()
}

// TestHTTPSubscriptionsServerLimit: the sessions of a server hold at most
// maxSubscriptions subscriptions together; past them a subscription is
// refused with an error that says why, and the end of a session makes room.
func TestHTTPSubscriptionsServerLimit(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{}, subscribeSource(t))
	var sessions []map[string]string
	for i := range maxSubscriptions / maxSessionSubscriptions {
		hdr := rawSession(t, e, "2025-03-26")
		sessions = append(sessions, hdr)
		for uri, err := range subscribeBatch(t, e, hdr, longURIs(strconv.Itoa(i), maxSessionSubscriptions, 40)) {
			if err != nil {
				t.Fatalf("subscribe %s: %v", uri, err)
			}
		}
	}
	last := rawSession(t, e, "2025-03-26")
	err := subscribeBatch(t, e, last, []string{"echo://last"})["echo://last"]
	if err == nil || err.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(err.Message, `cannot subscribe to "echo://last": the server's sessions hold 10000 subscriptions, as many as toolhost allows in all`) {
		t.Fatalf("a subscription past the server's limit: %v", err)
	}
	if resp := rawDelete(t, e, sessions[0]); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	testconfig.WaitFor(t, "the session's subscriptions to be dropped", func() bool {
		return countSubscriptions(t, e.srv).subs == maxSubscriptions-maxSessionSubscriptions
	})
	if err := subscribeBatch(t, e, last, []string{"echo://last"})["echo://last"]; err != nil {
		t.Fatalf("a subscription once a session ended: %v", err)
	}
}

// TestHTTPSubscriptionsByteLimit: the URIs the sessions of a server are
// subscribed to add up to at most maxSubscriptionBytes; past them a
// subscription is refused with an error that says why, and the end of a
// session makes room. Before, the URIs of many subscriptions were held
// without bound, and the server's memory grew with them.
func TestHTTPSubscriptionsByteLimit(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{}, subscribeSource(t))
	const fit = maxSubscriptionBytes / maxResourceURI
	first := rawSession(t, e, "2025-03-26")
	uris := longURIs("a", maxSessionSubscriptions, maxResourceURI)
	for i := 0; i < len(uris); i += 250 {
		for uri, err := range subscribeBatch(t, e, first, uris[i:i+250]) {
			if err != nil {
				t.Fatalf("subscribe %.40s: %v", uri, err)
			}
		}
	}
	second := rawSession(t, e, "2025-03-26")
	more := longURIs("b", fit-maxSessionSubscriptions+1, maxResourceURI)
	// The requests of a batch may be handled in any order: whichever
	// comes last is the one past the limit.
	errs := subscribeBatch(t, e, second, more)
	var refused []string
	for _, uri := range more {
		if errs[uri] != nil {
			refused = append(refused, uri)
		}
	}
	if len(refused) != 1 {
		t.Fatalf("%d of %d subscriptions refused, want the one past the limit", len(refused), len(more))
	}
	last := refused[0]
	want := fmt.Sprintf(`the URIs the server's sessions are subscribed to add up to %d bytes, and this one would take them past the %d toolhost allows in all`, fit*maxResourceURI, maxSubscriptionBytes)
	if err := errs[last]; err.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(err.Message, want) {
		t.Fatalf("a subscription past the limit: %v\nwant %s", err, want)
	}
	if got := countSubscriptions(t, e.srv); got.subs != fit {
		t.Fatalf("the server holds %+v, want %d subscriptions", got, fit)
	}
	if resp := rawDelete(t, e, first); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	testconfig.WaitFor(t, "the session's subscriptions to be dropped", func() bool {
		return countSubscriptions(t, e.srv).subs == fit-maxSessionSubscriptions
	})
	if err := subscribeBatch(t, e, second, []string{last})[last]; err != nil {
		t.Fatalf("a subscription once a session ended: %v", err)
	}
}

// TestHTTPStatelessSubscriptionsNotKept: in stateless mode each request has
// a session of its own, which ends with it: a subscription is checked as
// any other, then dropped with its request's session.
func TestHTTPStatelessSubscriptionsNotKept(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, subscribeSource(t))
	hdr := map[string]string{"Mcp-Protocol-Version": "2025-06-18"}
	for i, tc := range []struct{ uri, want string }{
		{"docs://report", `"result":{}`},
		{"tree://../secret", `cannot serve a file called`},
		{"echo://x", `"result":{}`},
	} {
		resp := rawPost(t, e.base+"/mcp", subscribeLine(i+1, tc.uri), hdr)
		if m, _ := json.Marshal(newSSEReader(resp.Body).message(t)); !strings.Contains(string(m), tc.want) {
			t.Fatalf("subscribe %s: %s, want %s", tc.uri, m, tc.want)
		}
	}
	waitSubscriptions(t, e.srv, subscriptionCounts{})
}

// TestHTTPListenSubscriptions: the resource subscriptions of a
// subscriptions/listen stream (the 2026-07-28 protocol) are checked as
// resources/subscribe's, and dropped when the stream ends.
func TestHTTPListenSubscriptions(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, subscribeSource(t))
	hdr := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"}
	listen := func(uris ...string) *http.Response {
		b, _ := json.Marshal(uris)
		return rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"resourceSubscriptions":`+string(b)+`}}}`, hdr)
	}
	for _, tc := range []struct {
		name string
		uris []string
		want string
	}{
		{"outside the directory", []string{"docs://report", "tree://../secret"}, `cannot subscribe to \"tree://../secret\": resource template \"tree\" cannot serve a file called`},
		{"too long", []string{"echo://" + strings.Repeat("z", maxResourceURI)}, `invalid params of subscriptions/listen: \"notifications.resourceSubscriptions\" is 8199 bytes long`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := listen(tc.uris...)
			// A stream that was accepted stays open: cut it short.
			cut := time.AfterFunc(10*time.Second, func() { resp.Body.Close() })
			body, _ := io.ReadAll(resp.Body)
			cut.Stop()
			if !strings.Contains(string(body), tc.want) {
				t.Fatalf("listen: %s %s\nwant %s", resp.Status, body, tc.want)
			}
			waitSubscriptions(t, e.srv, subscriptionCounts{})
		})
	}
	resp := listen("docs://report", "tree://sub/b.md")
	r := newSSEReader(resp.Body)
	if m := r.message(t); m["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("listen: %v, want the acknowledgement", m)
	}
	if got := countSubscriptions(t, e.srv); got != (subscriptionCounts{2, 1, 2}) {
		t.Fatalf("while the stream is open, the server holds %+v", got)
	}
	resp.Body.Close()
	waitSubscriptions(t, e.srv, subscriptionCounts{})
}

// TestSSESubscriptionsFreedWhenStreamCloses: the subscriptions of a legacy
// SSE session are dropped when the client closes its stream.
func TestSSESubscriptionsFreedWhenStreamCloses(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{}, subscribeSource(t))
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
	post := func(body string) {
		t.Helper()
		if resp := rawPost(t, e.base+ev.data, body, nil); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST %s: %s, want 202", body, resp.Status)
		}
	}
	initializeSSE(t, r, post)
	for i, uri := range []string{"docs://report", "tree://sub/b.md"} {
		post(subscribeLine(i+1, uri))
		if m := r.message(t); m["error"] != nil {
			t.Fatalf("subscribe %s: %v", uri, m["error"])
		}
	}
	if got := countSubscriptions(t, e.srv); got != (subscriptionCounts{2, 1, 2}) {
		t.Fatalf("after 2 subscriptions, the server holds %+v", got)
	}
	resp.Body.Close()
	waitSubscriptions(t, e.srv, subscriptionCounts{})
}

// listenBody is a subscriptions/listen request of the 2026-07-28 protocol
// for uris, with extra members in its notifications (junk a client adds).
func listenBody(uris []string, extra string) string {
	b, _ := json.Marshal(uris)
	return `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{` + extra + `"resourceSubscriptions":` + string(b) + `}}}`
}

// listenHeaders are the headers of a subscriptions/listen POST.
var listenHeaders = map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"}

// readRefusal reads the whole answer to a request that should be refused
// (a stream that was accepted instead is cut short).
func readRefusal(t *testing.T, resp *http.Response) string {
	t.Helper()
	cut := time.AfterFunc(10*time.Second, func() { resp.Body.Close() })
	defer cut.Stop()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

// TestHTTPListenLimits: a subscriptions/listen request is refused before
// anything is subscribed when it lists too many URIs or too many bytes of
// them, duplicates included, or when its body is longer than a listen
// request needs; the URIs it lists twice are subscribed, and acknowledged,
// once.
func TestHTTPListenLimits(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, subscribeSource(t))
	long := func(i int) string { return fmt.Sprintf("echo://%d-%s", i, strings.Repeat("u", maxResourceURI-20)) }
	var longs []string
	for i := 0; len(longs)*(maxResourceURI-10) <= maxListenURIBytes; i++ {
		longs = append(longs, long(i))
	}
	for _, tc := range []struct {
		name   string
		body   string
		status int
		want   string
	}{
		{"too many URIs", listenBody(slices.Repeat([]string{"docs://report"}, maxListenURIs+1), ""), http.StatusBadRequest,
			fmt.Sprintf(`\"notifications.resourceSubscriptions\" lists %d resource URIs, more than the %d toolhost takes in one request (duplicates count)`, maxListenURIs+1, maxListenURIs)},
		{"too many bytes", listenBody(longs, ""), http.StatusBadRequest,
			fmt.Sprintf(`add up to %d bytes, more than the %d toolhost takes in one request`, len(strings.Join(longs, "")), maxListenURIBytes)},
		{"too many bytes of one URI", listenBody(slices.Repeat([]string{long(0)}, 9), ""), http.StatusBadRequest,
			`more than the 65536 toolhost takes in one request (duplicates count)`},
		{"body too large", listenBody([]string{"docs://report"}, `"junk":"`+strings.Repeat("x", maxListenBody)+`",`), http.StatusRequestEntityTooLarge,
			fmt.Sprintf(`longer than the %d bytes toolhost takes for one`, maxListenBody)},
		{"duplicates in a body too large", listenBody(slices.Repeat([]string{"docs://report"}, 240000), ""), http.StatusRequestEntityTooLarge,
			`list each resource URI once`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPost(t, e.base+"/mcp", tc.body, listenHeaders)
			body := readRefusal(t, resp)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("listen: %s %.600s\nwant %d and %s", resp.Status, body, tc.status, tc.want)
			}
			waitSubscriptions(t, e.srv, subscriptionCounts{})
		})
	}

	// Each URI once, in the order first listed.
	uris := append(slices.Repeat([]string{"docs://report"}, 400), slices.Repeat([]string{"tree://sub/b.md", "docs://report"}, maxListenURIs/2-200)...)
	resp := rawPost(t, e.base+"/mcp", listenBody(uris, ""), listenHeaders)
	m := newSSEReader(resp.Body).message(t)
	ack, _ := json.Marshal(m["params"].(map[string]any)["notifications"])
	if want := `{"resourceSubscriptions":["docs://report","tree://sub/b.md"]}`; string(ack) != want {
		t.Fatalf("acknowledged %s, want %s", ack, want)
	}
	if got := countSubscriptions(t, e.srv); got != (subscriptionCounts{2, 1, 2}) {
		t.Fatalf("while the stream is open, the server holds %+v", got)
	}
	resp.Body.Close()
	waitSubscriptions(t, e.srv, subscriptionCounts{})
}

// TestHTTPListenStreamsCountAsSessions: with --stateless, each open
// subscriptions/listen stream is a session, counted against MaxSessions: one
// more is refused with 503 and a JSON-RPC error that names the limit, and
// taken again once a stream closes.
func TestHTTPListenStreamsCountAsSessions(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true, MaxSessions: 3}, subscribeSource(t))
	open := func() (*http.Response, map[string]any) {
		resp := rawPost(t, e.base+"/mcp", listenBody([]string{"docs://report"}, `"toolsListChanged":true,`), listenHeaders)
		if resp.StatusCode != http.StatusOK {
			return resp, nil
		}
		return resp, newSSEReader(resp.Body).message(t)
	}
	var streams []*http.Response
	for i := range 3 {
		resp, m := open()
		if m == nil || m["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("stream %d: %s %v, want the acknowledgement", i, resp.Status, m)
		}
		streams = append(streams, resp)
	}
	resp, _ := open()
	body := readRefusal(t, resp)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(body, `"code":-32603`) || !strings.Contains(body, "the server has 3 sessions open, subscriptions/listen streams included") {
		t.Fatalf("a fourth stream: %s %s, want 503 naming --max-sessions", resp.Status, body)
	}
	streams[0].Body.Close()
	waitSubscriptions(t, e.srv, subscriptionCounts{2, 2, 1})
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, m := open()
		if m != nil {
			resp.Body.Close()
			break
		}
		readRefusal(t, resp)
		if time.Now().After(deadline) {
			t.Fatalf("no stream opens after one closed: %s", resp.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHTTPListenBytesLimit: the requests of the open subscriptions/listen
// streams, which hold them while open, add up to at most maxListenBodies:
// one more is refused with 503 and a JSON-RPC error that names the limit,
// and taken again once a stream closes.
func TestHTTPListenBytesLimit(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, subscribeSource(t))
	body := listenBody([]string{"docs://report"}, `"junk":"",`)
	body = strings.Replace(body, `"junk":"`, `"junk":"`+strings.Repeat("x", maxListenBody-len(body)), 1)
	open := func() (*http.Response, map[string]any) {
		resp := rawPost(t, e.base+"/mcp", body, listenHeaders)
		if resp.StatusCode != http.StatusOK {
			return resp, nil
		}
		return resp, newSSEReader(resp.Body).message(t)
	}
	const fit = maxListenBodies / maxListenBody
	var streams []*http.Response
	for i := range fit {
		resp, m := open()
		if m == nil || m["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("stream %d: %s %v, want the acknowledgement", i, resp.Status, m)
		}
		streams = append(streams, resp)
	}
	resp, _ := open()
	got := readRefusal(t, resp)
	want := fmt.Sprintf("the open subscriptions/listen streams hold %d bytes of requests, and this one would take them past the %d toolhost allows in all", fit*maxListenBody, maxListenBodies)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(got, want) {
		t.Fatalf("one more stream: %s %s\nwant 503 and %s", resp.Status, got, want)
	}
	streams[0].Body.Close()
	testconfig.WaitFor(t, "a stream to open once another closed", func() bool {
		resp, m := open()
		if m == nil {
			readRefusal(t, resp)
			return false
		}
		resp.Body.Close()
		return true
	})
}

// TestHTTPListenRefusedInSessions: a session of an earlier protocol may
// not open a subscriptions/listen stream: the SDK would keep it, and its
// subscriptions, until the session ends, whether the client still reads it
// or not.
func TestHTTPListenRefusedInSessions(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{}, subscribeSource(t))
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			hdr := rawSession(t, e, version)
			hdr["Mcp-Method"] = "subscriptions/listen"
			resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["docs://report"]}}}`, hdr)
			body := readRefusal(t, resp)
			if want := "subscriptions/listen is a request of the 2026-07-28 protocol, and this session speaks " + version; !strings.Contains(body, want) {
				t.Fatalf("listen: %s %s\nwant %s", resp.Status, body, want)
			}
			if got := countSubscriptions(t, e.srv); got.subs != 0 {
				t.Fatalf("after the refusal, the server holds %+v", got)
			}
		})
	}
}

// listenLine is a subscriptions/listen request of the 2026-07-28 protocol,
// for stdio.
func listenLine(id int, uris ...string) string {
	return strings.Replace(listenBody(uris, ""), `"id":1`, `"id":`+strconv.Itoa(id), 1)
}

// TestStdioListenLimits: over stdio, one session has at most
// maxSessionListens subscriptions/listen streams open, and each is bounded
// as over HTTP: too many URIs are refused, duplicates subscribed to once;
// a session of an earlier protocol may open none.
func TestStdioListenLimits(t *testing.T) {
	p := startStdio(t, loadSource(t, subscribeSource(t)))
	ack := func() {
		t.Helper()
		if r := p.next(); !strings.Contains(r.line, `"method":"notifications/subscriptions/acknowledged"`) {
			t.Fatalf("got %s, want the acknowledgement", r.line)
		}
	}
	p.send(listenLine(1, slices.Repeat([]string{"docs://report"}, maxListenURIs+1)...))
	wantError(t, p.next(), "1", jsonrpc.CodeInvalidParams, fmt.Sprintf("lists %d resource URIs, more than the %d toolhost takes in one request", maxListenURIs+1, maxListenURIs))
	p.send(listenLine(2, slices.Repeat([]string{"docs://report", "tree://sub/b.md"}, maxListenURIs/2)...))
	r := p.next()
	if !strings.Contains(r.line, `"notifications":{"resourceSubscriptions":["docs://report","tree://sub/b.md"]}`) {
		t.Fatalf("got %s, want the acknowledgement of each URI once", r.line)
	}
	for id := 3; id <= maxSessionListens+1; id++ {
		p.send(listenLine(id, "docs://report"))
		ack()
	}
	p.send(listenLine(100, "docs://report"))
	wantError(t, p.next(), "100", jsonrpc.CodeInvalidRequest, fmt.Sprintf("this session has %d subscriptions/listen streams open, as many as toolhost allows one session", maxSessionListens))
	if got := countSubscriptions(t, p.srv); got != (subscriptionCounts{2, 1, 2}) {
		t.Fatalf("the server holds %+v", got)
	}
	// A stream cancelled makes room.
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
	for id := 101; ; id++ {
		p.send(listenLine(id, "docs://report"))
		r := p.next()
		if strings.Contains(r.line, `"method":"notifications/subscriptions/acknowledged"`) {
			break
		}
		wantError(t, r, strconv.Itoa(id), jsonrpc.CodeInvalidRequest, "as many as toolhost allows one session")
		if id > 200 {
			t.Fatal("no stream opens once one was cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}

	old := startStdio(t, loadSource(t, subscribeSource(t)))
	old.initialize()
	old.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["docs://report"]}}}`)
	wantError(t, old.next(), "1", jsonrpc.CodeInvalidRequest, "subscriptions/listen is a request of the 2026-07-28 protocol, and this session speaks 2025-06-18")
}
