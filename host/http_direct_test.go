package host

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestHTTPDirectAsSDK checks that a session answers the POSTs the direct
// path serves (http_direct.go) as the SDK's handler answers them: the same
// status, the headers that matter to a client, the same messages (a log
// line before the answer included), and event IDs on the same pattern;
// and that every other POST falls through to the SDK. Each request is
// sent twice on one session: with the direct path, then without it.
func TestHTTPDirectAsSDK(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{}, httpFeatureConfig)
	hdr := rawSession(t, e, "2025-11-25")
	older := rawSession(t, e, "2025-06-18")
	with := func(base map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(out, kv[i])
				continue
			}
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	call := func(id, tool, rest string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}` + rest + `}}`
	}
	for _, tc := range []struct {
		name, body string
		hdr        map[string]string
		direct     bool
	}{
		{"a call", call("1", "quick", ""), hdr, true},
		{"a call with a string id", call(`"a"`, "quick", ""), hdr, true},
		{"a call that logs at warning", call("2", "warning_log", ""), hdr, true},
		{"a call that logs at info", call("3", "info_log", ""), hdr, true},
		{"a call of an unknown tool", call("4", "nope", ""), hdr, true},
		{"a call of an older protocol", call("5", "quick", ""), older, true},
		{"a call with arguments null", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"quick","arguments":null}}`, hdr, true},
		{"a call that confirms", call("7", "delete_allowed", ""), hdr, false},
		{"a call that asks", call("8", "book", ""), hdr, false},
		{"a call with _meta", call("9", "quick", `,"_meta":{"progressToken":"p"}`), hdr, false},
		{"a call as a task", call("10", "quick", `,"task":{}`), hdr, false},
		{"a call without a version header", call("11", "quick", ""), with(hdr, "Mcp-Protocol-Version", ""), false},
		{"a call with another version header", call("12", "quick", ""), with(hdr, "Mcp-Protocol-Version", "2025-06-18"), false},
		{"a call that accepts no event stream", call("13", "quick", ""), with(hdr, "Accept", "application/json"), false},
		{"a call of an unknown session", call("14", "quick", ""), with(hdr, "Mcp-Session-Id", "nope"), false},
		{"a call without an id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"quick"}}`, hdr, false},
		{"tools/list", `{"jsonrpc":"2.0","id":15,"method":"tools/list"}`, hdr, false},
		{"a batch", `[` + call("16", "quick", "") + `]`, older, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := directHTTPTaken.Load()
			got := rawPost(t, e.base+"/mcp", tc.body, tc.hdr)
			gotEvents := readAllEvents(t, got.Body)
			if taken := directHTTPTaken.Load() - before; taken != map[bool]int64{true: 1}[tc.direct] {
				t.Fatalf("the direct path took %d POSTs, want it to take it: %v", taken, tc.direct)
			}
			e.hs.directOff.Store(true)
			want := rawPost(t, e.base+"/mcp", tc.body, tc.hdr)
			wantEvents := readAllEvents(t, want.Body)
			e.hs.directOff.Store(false)
			if got.StatusCode != want.StatusCode {
				t.Fatalf("status %d, the SDK's %d", got.StatusCode, want.StatusCode)
			}
			for _, h := range []string{"Content-Type", "Cache-Control", "Mcp-Session-Id"} {
				if got.Header.Get(h) != want.Header.Get(h) {
					t.Errorf("%s %q, the SDK's %q", h, got.Header.Get(h), want.Header.Get(h))
				}
			}
			g, w := eventShapes(gotEvents), eventShapes(wantEvents)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("events\n%v\nthe SDK's\n%v", g, w)
			}
			if logs := strings.Contains(tc.name, "logs at warning"); logs != (len(g) == 3) {
				t.Errorf("%d events, want a priming event, a log line and the answer: %v", len(g), logs)
			}
		})
	}
}

// eventShapes is what a client reads of SSE events: each one's name, the
// pattern of its ID (the stream's own part left out) and its data.
func eventShapes(evs []sseEvent) []string {
	var out []string
	for _, ev := range evs {
		id := ev.id
		if _, index, ok := strings.Cut(id, "_"); ok {
			id = "<stream>_" + index
		}
		out = append(out, fmt.Sprintf("%s %s %s", ev.name, id, ev.data))
	}
	return out
}

// TestHTTPDirectCancelAndDelete checks that a call on the direct path is
// stopped as through the SDK: by notifications/cancelled, its stream
// ending without its answer, and by a DELETE of its session, which is
// answered at once, after which the session is gone; that a GET resumes
// its stream while it runs; and that a request reusing its id while it
// runs is refused, as the SDK refuses one, whichever path would serve it.
func TestHTTPDirectCancelAndDelete(t *testing.T) {
	for _, how := range []string{"cancelled", "deleted", "resumed", "duplicate"} {
		t.Run(how, func(t *testing.T) {
			e := startHTTPConfig(t, HTTPOptions{}, httpFeatureConfig+gateTool)
			hdr := rawSession(t, e, "2025-11-25")
			dir := t.TempDir()
			before := directHTTPTaken.Load()
			tool := "marker"
			if how == "resumed" || how == "duplicate" {
				tool = "gate"
			}
			resp := rawPost(t, e.base+"/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":55,"method":"tools/call","params":{"name":%q,"arguments":{"dir":%q}}}`, tool, dir), hdr)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("tools/call: %s", resp.Status)
			}
			waitForFile(t, filepath.Join(dir, "started"))
			if directHTTPTaken.Load() == before {
				t.Fatal("the call did not take the direct path")
			}
			switch how {
			case "cancelled", "deleted":
				if got, want := stopCall(t, e, hdr, how), map[string]int{"cancelled": http.StatusAccepted, "deleted": http.StatusNoContent}[how]; got != want {
					t.Fatalf("the call %s: status %d, want %d", how, got, want)
				}
			case "duplicate":
				// Whichever path would serve it: the direct path, or the
				// SDK, which does not know the direct call.
				for _, body := range []string{
					`{"jsonrpc":"2.0","id":55,"method":"tools/call","params":{"name":"quick","arguments":{}}}`,
					`{"jsonrpc":"2.0","id":55,"method":"tools/list"}`,
					`{"jsonrpc":"2.0","id":55,"method":"tools/call","params":{"name":"quick","arguments":{},"_meta":{"progressToken":"p"}}}`,
				} {
					again := rawPost(t, e.base+"/mcp", body, hdr)
					got, _ := io.ReadAll(again.Body)
					if again.StatusCode != http.StatusBadRequest || !strings.Contains(string(got), "duplicate in-flight request ID 55") {
						t.Errorf("%s, reusing the id of a call in flight: %s %s", body, again.Status, got)
					}
				}
				releaseGate(t, dir, resp)
				return
			case "resumed":
				sr := newSSEReader(resp.Body)
				prime, err := sr.next()
				if err != nil || prime.id == "" {
					t.Fatalf("no priming event: %+v %v", prime, err)
				}
				resp.Body.Close() // the connection breaks
				stream, _, _ := strings.Cut(prime.id, "_")
				d := e.hs.direct.get(hdr["Mcp-Session-Id"])
				held := func() bool {
					d.mu.Lock()
					s := d.streams[stream]
					d.mu.Unlock()
					s.mu.Lock()
					defer s.mu.Unlock()
					return s.w != nil
				}
				// The server sees the POST's connection end.
				testconfig.WaitFor(t, "the POST lets go of the stream", func() bool { return !held() })
				got := make(chan *http.Response, 1)
				go func() {
					req, _ := http.NewRequest(http.MethodGet, e.base+"/mcp", nil)
					for k, v := range with2(hdr, "Last-Event-ID", prime.id) {
						req.Header.Set(k, v)
					}
					req.Header.Set("Accept", "text/event-stream")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Error(err)
					}
					got <- resp
				}()
				testconfig.WaitFor(t, "the GET holds the stream", held)
				if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
					t.Fatal(err)
				}
				g := <-got
				if g == nil || g.StatusCode != http.StatusOK {
					t.Fatalf("the GET that resumes the stream: %v", g)
				}
				defer g.Body.Close()
				evs := readAllEvents(t, g.Body)
				if a := answers(t, evs)["55"]; len(evs) != 1 || evs[0].id != stream+"_1" || !strings.Contains(fmt.Sprint(a["result"]), "done") {
					t.Fatalf("the resumed stream: %+v", evs)
				}
				return
			}
			evs := readAllEvents(t, resp.Body)
			if a, ok := answers(t, evs)["55"]; ok {
				t.Fatalf("the stopped call got an answer: %v", a)
			}
			testconfig.WaitFor(t, "the call ended", func() bool { return e.hs.InFlight() == 0 })
			if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
				t.Fatal("the backend ran to its end: it was not killed")
			}
			next := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":56,"method":"tools/call","params":{"name":"quick","arguments":{}}}`, hdr)
			if how == "deleted" {
				if next.StatusCode != http.StatusNotFound {
					t.Fatalf("a call after the DELETE: %s, want 404", next.Status)
				}
				return
			}
			if a := answers(t, readAllEvents(t, next.Body))["56"]; !strings.Contains(fmt.Sprint(a["result"]), "quick") {
				t.Fatalf("the next call: %v", a)
			}
		})
	}
}

// gateTool starts, then waits for DIR/go before it answers "done".
var gateTool = `
tool "gate" {
  description = "waits for DIR/go"
  param "dir" {
    type = string
  }
  exec {
    ` + helperCommand(`"touch"`, `"${param.dir}/started"`, `"await"`, `"${param.dir}/go"`, `"echo"`, `"done"`) + `
    timeout = "60s"
  }
}
`

// with2 is hdr with k set to v.
func with2(hdr map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for kk, vv := range hdr {
		out[kk] = vv
	}
	return out
}

// releaseGate lets the gate call of dir answer, and checks that its
// answer, on resp, is "done".
func releaseGate(t *testing.T, dir string, resp *http.Response) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if a := answers(t, readAllEvents(t, resp.Body))["55"]; !strings.Contains(fmt.Sprint(a["result"]), "done") {
		t.Fatalf("the gate call: %v", a)
	}
}

// stopCall stops the call of id 55 with hdr's session and token, as how
// says: by notifications/cancelled, or by a DELETE of the session; it
// returns the status of the answer.
func stopCall(t *testing.T, e *httpEnv, hdr map[string]string, how string) int {
	t.Helper()
	if how == "deleted" {
		return rawDelete(t, e, hdr).StatusCode
	}
	return rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":55}}`, hdr).StatusCode
}

// TestHTTPDirectIDReusedAtOnce: a client that sends its next call with the
// id of the last the moment it has read that call's answer, before the
// answer's stream has ended, gets the new call run, as the SDK runs it
// (its id is free once the answer is written), not refused as a duplicate.
func TestHTTPDirectIDReusedAtOnce(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{}, httpFeatureConfig)
	hdr := rawSession(t, e, "2025-11-25")
	before := directHTTPTaken.Load()
	const calls = 300
	for i := range calls {
		resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"quick","arguments":{}}}`, hdr)
		if resp.StatusCode != http.StatusOK {
			got, _ := io.ReadAll(resp.Body)
			t.Fatalf("call %d with the id of the last: %s %s", i, resp.Status, got)
		}
		sr := newSSEReader(resp.Body)
		for {
			ev, err := sr.next()
			if err != nil {
				t.Fatalf("call %d: the stream ended without the answer: %v", i, err)
			}
			if strings.Contains(ev.data, `"id":7`) {
				break
			}
		}
	}
	if got := directHTTPTaken.Load() - before; got != calls {
		t.Errorf("%d of %d calls took the direct path", got, calls)
	}
}

// TestDirectCallOfAToolThatNowAsks: a call the direct path took, of a tool
// a reload has since given a confirmation or a form, runs nothing and
// says to call again (its question could not reach the client), however
// confirm_fallback reads; outside the direct path the tool asks as usual.
func TestDirectCallOfAToolThatNowAsks(t *testing.T) {
	direct := context.WithValue(context.Background(), directKey{}, &directStream{})
	for _, tc := range []struct {
		name string
		tool *thcl.Tool
	}{
		{"confirm", &thcl.Tool{Name: "deploy", Confirm: hcl.StaticExpr(cty.True, hcl.Range{}), ConfirmFallback: "allow"}},
		{"ask", &thcl.Tool{Name: "deploy", Ask: &thcl.Ask{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Registry
			_, res := r.approve(direct, tc.tool, nil, nil)
			if res == nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "nothing ran: call it again") {
				t.Fatalf("approve = %+v, want a refusal that says to call again", res)
			}
		})
	}
}
