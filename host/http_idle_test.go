package host

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestIdleSessionsFollowFromTheFirstByte: a session is followed from the
// moment its ID goes out in the response that creates it, not from the
// end of that response: a client may open its GET stream with the ID
// while the response is still ending, and that stream must keep the
// session (it was left out, and the session closed under it).
func TestIdleSessionsFollowFromTheFirstByte(t *testing.T) {
	closed := make(chan string, 1)
	idle := newIdleSessions(time.Hour, func(sid string) { closed <- sid })
	release := make(chan struct{})
	inGET := make(chan struct{})
	handler := idle.track(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" {
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Write([]byte("created\n"))
			w.(http.Flusher).Flush()
			<-release // the response is still ending
			return
		}
		close(inGET)
		<-release
	}))
	srv := httptest.NewServer(handler)
	defer srv.Close()
	defer close(release)

	resp, err := http.Post(srv.URL, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || line != "created\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	go func() {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("Mcp-Session-Id", "s1")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-inGET
	idle.mu.Lock()
	st, open := idle.sessions["s1"], 0
	if st != nil {
		open = st.open
	}
	idle.mu.Unlock()
	if st == nil || open != 1 {
		t.Fatalf("session s1 while its GET is open: followed %v, %d requests open; want followed, 1", st != nil, open)
	}
}

// TestSessionStreamsForgetEndedSessions: an event the SDK appends for a
// session after it told the store the session closed (a notification
// racing the close) leaves no entry behind; the sessions remembered as
// ended are bounded.
func TestSessionStreamsForgetEndedSessions(t *testing.T) {
	s := newSessionStreams(nil, time.Second)
	s.Append("a", "", false)
	s.SessionClosed("a")
	s.Append("a", "", false)
	s.Append("a", "7", true)
	if len(s.appended) != 0 || len(s.cancelled) != 0 {
		t.Fatalf("entries after the close: appended %v, cancelled %v", s.appended, s.cancelled)
	}
	for i := range maxEndedSessions + 10 {
		s.SessionClosed(fmt.Sprint("s", i))
	}
	if len(s.ended) != maxEndedSessions || len(s.endedOrder) != maxEndedSessions {
		t.Fatalf("%d sessions remembered as ended (%d in order), want %d", len(s.ended), len(s.endedOrder), maxEndedSessions)
	}
}
