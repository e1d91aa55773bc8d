package host

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// sessionsFollowed counts the sessions h.streams and h.idle still hold.
func sessionsFollowed(e *httpEnv) (sent, appended, cancelled, idle int) {
	s := e.hs.streams
	s.mu.Lock()
	sent, appended, cancelled = len(s.sent), len(s.appended), len(s.cancelled)
	s.mu.Unlock()
	if e.hs.idle != nil {
		e.hs.idle.mu.Lock()
		idle = len(e.hs.idle.sessions)
		e.hs.idle.mu.Unlock()
	}
	return
}

// TestHTTPGetStreamForgottenWithItsSession: a session that ends while its
// GET stream is open (the Go SDK client's Close sends DELETE before it
// drops its GET stream) leaves nothing behind in the GET streams' record.
// The stream's handler returned after the session was forgotten, and
// recorded the events it had delivered under the ID of a session that no
// longer exists: one map entry per such session, for the life of the
// process.
func TestHTTPGetStreamForgottenWithItsSession(t *testing.T) {
	const keepAlive = 50 * time.Millisecond
	e := startHTTP(t, HTTPOptions{SSEKeepAlive: keepAlive})
	for i := range 3 {
		cs := e.connect(nil, nil)
		sid := cs.ID()
		testconfig.WaitFor(t, "the GET stream to open", func() bool {
			// The SDK client opens its GET stream after initialize.
			for ss := range e.srv.MCP().Sessions() {
				if ss.ID() == sid {
					return true
				}
			}
			return false
		})
		time.Sleep(200 * time.Millisecond)
		addToolByReload(t, e, 10+i)
		time.Sleep(6 * keepAlive) // the event outlives its grace on the stream
		if err := cs.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
	}
	testconfig.WaitFor(t, "every session to end", func() bool {
		n := 0
		for range e.srv.MCP().Sessions() {
			n++
		}
		return n == 0
	})
	time.Sleep(200 * time.Millisecond) // the GET handlers return
	if sent, appended, cancelled, _ := sessionsFollowed(e); sent+appended+cancelled != 0 {
		t.Fatalf("after every session ended: %d sent, %d appended, %d cancelled entries left; want none", sent, appended, cancelled)
	}
}

// TestHTTPIdleCloseAfterRefusedVersion: a request the SDK refuses for its
// Mcp-Protocol-Version header does not keep its session from the idle
// timeout. The header's value was kept for the DELETE that closes the
// session, which the SDK then refused the same way (400): the session was
// said closed in the log, stayed open, and was no longer followed, so it
// was never closed at all.
func TestHTTPIdleCloseAfterRefusedVersion(t *testing.T) {
	const idle = 500 * time.Millisecond
	e := startHTTP(t, HTTPOptions{SessionIdleTimeout: idle})
	hdr := rawSession(t, e, "2025-06-18")
	bad := map[string]string{"Mcp-Session-Id": hdr["Mcp-Session-Id"], "Mcp-Protocol-Version": "2024-01-01"}
	resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, bad)
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a request with an unsupported version: %s, want 400", resp.Status)
	}
	testconfig.WaitFor(t, "the idle session to be closed", func() bool {
		return strings.Contains(e.log.String(), `session closed after its idle timeout" session_id=`+hdr["Mcp-Session-Id"])
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		alive := false
		for ss := range e.srv.MCP().Sessions() {
			if ss.ID() == hdr["Mcp-Session-Id"] {
				alive = true
			}
		}
		if !alive {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, _, _, followed := sessionsFollowed(e)
	t.Fatalf("the session is still open %s after its idle close (followed sessions: %d)", 5*time.Second, followed)
}

// TestHTTPResumeBatchWithOneCallCancelled: a GET that resumes the stream
// of a batch (protocol 2025-03-26) in which one call was cancelled, and
// another still runs, gets that other call's answer: the stream has not
// ended. It got 204 No Content, and the running call's answer was lost.
func TestHTTPResumeBatchWithOneCallCancelled(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	hdr := rawSession(t, e, "2025-03-26")
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"a"}}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":30}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":2}}}]`
	resp := rawPost(t, e.base+"/mcp", batch, hdr)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("batch: %s", resp.Status)
	}
	r := newSSEReader(resp.Body)
	first := nextMessage(t, r)
	if !strings.Contains(first.data, `"id":1`) || first.id == "" {
		t.Fatalf("first event %+v", first)
	}
	stream, _, _ := strings.Cut(first.id, "_")
	// Calls 2 and 3 must have reached the server's handler: a cancellation
	// of a request the server has not yet read is ignored, as the spec lets it.
	testconfig.WaitFor(t, "calls 2 and 3 to be in flight", func() bool { return e.hs.inflight.Load() == 2 })
	if c := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, hdr); c.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: %s", c.Status)
	}
	testconfig.WaitFor(t, "the cancelled call's answer to be dropped", func() bool {
		e.hs.streams.mu.Lock()
		defer e.hs.streams.mu.Unlock()
		return e.hs.streams.cancelled[hdr["Mcp-Session-Id"]][stream]
	})
	resp.Body.Close() // the connection breaks; call 3 still runs
	time.Sleep(100 * time.Millisecond)

	gresp := rawGet(t, e, map[string]string{"Last-Event-ID": first.id, "Mcp-Session-Id": hdr["Mcp-Session-Id"], "Mcp-Protocol-Version": hdr["Mcp-Protocol-Version"]})
	if gresp.StatusCode != http.StatusOK {
		t.Fatalf("resuming the batch's stream while call 3 runs: %s, want 200 and call 3's answer", gresp.Status)
	}
	if a, ok := answers(t, readAllEvents(t, gresp.Body))["3"]; !ok {
		t.Fatalf("no answer to call 3 on the resumed stream")
	} else if !strings.Contains(fmt.Sprint(a["result"]), "slept") {
		t.Fatalf("call 3: %v", a)
	}
}
