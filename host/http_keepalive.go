package host

import (
	"net/http"
	"strconv"
	"sync"
)

// keepStreamsAlive gives the SSE streams of streamable HTTP what /sse
// streams get: X-Accel-Buffering: no, and a comment line every
// SSEKeepAlive while the stream is open, so that a proxy does not take a
// stream waiting for notifications, or for a long call's answer, for an
// idle connection and close it. The comments go between the SDK's events,
// each of which it writes in one Write. A response that is not a stream
// (a JSON answer, a 202) costs one small wrapper, no goroutine.
//
// The SDK writes a call's stream's headers with its first event: at once
// from protocol 2025-11-25 on (an empty priming event), but only with the
// answer or a notification on older protocols, and in --stateless mode (no
// event store, no priming event). Such a stream is started here instead,
// once every call of the POST has reached the server (see streamWaiters):
// the SDK has set the stream's headers then, and before 2026-07-28 touches
// them no more. (From 2026-07-28 on it may: see streamablePOST.)
func (h *HTTPServer) keepStreamsAlive(next http.Handler) http.Handler {
	if h.opts.SSEKeepAlive <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kw := &keepAliveWriter{ResponseWriter: w, interval: h.opts.SSEKeepAlive}
		defer kw.finish()
		if r.Method == http.MethodPost {
			// The token is ours to set: a client's is never used.
			r.Header.Del(streamTokenHeader)
			if n, _ := r.Context().Value(postCallsKey{}).(int); n > 0 {
				token := h.waiters.add(kw, n)
				defer h.waiters.remove(token)
				r.Header.Set(streamTokenHeader, token)
			}
		}
		next.ServeHTTP(kw, r)
	})
}

// postCallsKey is the request context key under which streamablePOST
// leaves the number of calls a POST carries.
type postCallsKey struct{}

// streamTokenHeader carries a POST's token in its request headers, which
// the SDK hands to the server's middleware with each of its calls
// (RequestExtra.Header).
const streamTokenHeader = "Toolhost-Call-Stream"

// streamWaiters holds the streams of the POSTs in flight whose calls have
// not all reached the server yet, by token.
type streamWaiters struct {
	mu      sync.Mutex
	next    uint64
	streams map[string]*keepAliveWriter
}

// add registers the stream of a POST with calls, and returns its token.
func (s *streamWaiters) add(k *keepAliveWriter, calls int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	token := strconv.FormatUint(s.next, 10)
	k.calls = calls
	if s.streams == nil {
		s.streams = map[string]*keepAliveWriter{}
	}
	s.streams[token] = k
	return token
}

// remove forgets the stream of a POST that has ended.
func (s *streamWaiters) remove(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.streams, token)
}

// callStarted notes that a call of the POST whose request headers are
// given has reached the server.
func (s *streamWaiters) callStarted(header http.Header) {
	token := header.Get(streamTokenHeader)
	if token == "" {
		return
	}
	s.mu.Lock()
	k := s.streams[token]
	s.mu.Unlock()
	if k != nil {
		k.callStarted()
	}
}
