package host

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// idleSessions closes the streamable HTTP sessions that have been idle for
// a timeout (--session-idle-timeout), so that clients that vanish without
// ending their session hold no memory. A session is busy while a request
// of it is open: a POST, and also a GET stream waiting for notifications,
// which the SDK's own timer does not count, so that it ended the session of
// a client that was only listening, connected all along. The close is a
// DELETE of the session, as the client's would be: the SDK ends the
// session, and calls still running for it are cancelled.
type idleSessions struct {
	timeout time.Duration
	// close ends a session: a DELETE, through the handler below the
	// tracking.
	close func(sid string)

	mu       sync.Mutex
	sessions map[string]*idleSession
}

type idleSession struct {
	open  int         // requests of the session in progress
	timer *time.Timer // runs while open is 0
}

func newIdleSessions(timeout time.Duration, close func(sid string)) *idleSessions {
	return &idleSessions{timeout: timeout, close: close, sessions: map[string]*idleSession{}}
}

// track is the middleware that follows the requests of each session. Only
// sessions the SDK created are followed (their ID came back in a
// response), so a made-up session ID costs nothing.
func (s *idleSessions) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		switch {
		case r.Method == http.MethodDelete:
		case sid != "":
			if s.begin(sid) {
				defer s.end(sid)
			}
		default:
			// The session is followed from the moment its ID goes out, before
			// the client can send its next request (or open its GET stream)
			// with it.
			w = &sessionStartWriter{ResponseWriter: w, start: func(sid string) {
				s.created(sid)
			}}
		}
		next.ServeHTTP(w, r)
	})
}

// sessionStartWriter is the response to a request without a session ID: it
// tells start the session ID the SDK gives it, as the headers go out.
type sessionStartWriter struct {
	http.ResponseWriter
	start   func(sid string)
	started bool
}

func (w *sessionStartWriter) check() {
	if !w.started {
		w.started = true
		if sid := w.Header().Get("Mcp-Session-Id"); sid != "" {
			w.start(sid)
		}
	}
}

func (w *sessionStartWriter) WriteHeader(code int) {
	w.check()
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionStartWriter) Write(b []byte) (int, error) {
	w.check()
	return w.ResponseWriter.Write(b)
}

// FlushError flushes, for http.ResponseController.
func (w *sessionStartWriter) FlushError() error {
	w.check()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush flushes, for http.Flusher.
func (w *sessionStartWriter) Flush() { _ = w.FlushError() }

// Unwrap gives http.ResponseController the response underneath.
func (w *sessionStartWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// created starts following a new session, idle from now.
func (s *idleSessions) created(sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[sid]; ok {
		return
	}
	s.sessions[sid] = &idleSession{timer: time.AfterFunc(s.timeout, func() { s.expire(sid) })}
}

// begin notes a request of a session starting; false for a session not
// followed.
func (s *idleSessions) begin(sid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.sessions[sid]
	if !ok {
		return false
	}
	st.open++
	if st.open == 1 {
		st.timer.Stop()
	}
	return true
}

// end notes a request of a session ending: the last one open starts the
// idle time.
func (s *idleSessions) end(sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.sessions[sid]
	if !ok {
		return
	}
	st.open--
	if st.open == 0 {
		st.timer.Reset(s.timeout)
	}
}

// expire closes a session whose idle time ran out, unless a request of it
// began meanwhile.
func (s *idleSessions) expire(sid string) {
	s.mu.Lock()
	st, ok := s.sessions[sid]
	if !ok || st.open > 0 {
		s.mu.Unlock()
		return
	}
	delete(s.sessions, sid)
	s.mu.Unlock()
	s.close(sid)
}

// forget stops following a session that ended.
func (s *idleSessions) forget(sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sessions[sid]; ok {
		st.timer.Stop()
		delete(s.sessions, sid)
	}
}

// stopAll stops every timer, at shutdown.
func (s *idleSessions) stopAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sid, st := range s.sessions {
		st.timer.Stop()
		delete(s.sessions, sid)
	}
}

// deleteSession sends handler the DELETE that ends session sid, and
// returns the status of the answer (204 when the session ended). The DELETE
// names no protocol version: the SDK checks one that is given, and a
// client's header may be one it refused (a request of the session that
// got 400), which would make it refuse the DELETE too.
func deleteSession(handler http.Handler, sid string) int {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, "/mcp", nil)
	if err != nil {
		return 0
	}
	req.Header.Set("Mcp-Session-Id", sid)
	w := &statusResponse{discardResponse: discardResponse{}}
	handler.ServeHTTP(w, req)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.status
}

// statusResponse is a discardResponse that keeps the status.
type statusResponse struct {
	discardResponse
	status int
}

func (w *statusResponse) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *statusResponse) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(b), nil
}
