package host

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// standaloneStreams follows, for each streamable HTTP session, the events
// of its standalone stream: the one a GET without Last-Event-ID opens for
// the server's notifications, whose event IDs are "_<index>". The SDK
// starts every such GET at the beginning of the session's stored events,
// so a client that opens a new GET stream (after a proxy closed the last
// one, say) would get every notification it already had again, though the
// spec sends a message on one stream only; and once the store has dropped
// the session's oldest events for room (10 MiB for all sessions), the GET
// fails with 400. resume starts such a GET after the last event a GET
// stream of the session was sent instead: a notification sent while no
// stream was open is still delivered, once.
type standaloneStreams struct {
	store mcp.EventStore
	mu    sync.Mutex
	// sent is the index of the last event written to a GET stream of the
	// session; appended the number of events stored for its standalone
	// stream.
	sent     map[string]int
	appended map[string]int
}

func newStandaloneStreams(store mcp.EventStore) *standaloneStreams {
	return &standaloneStreams{store: store, sent: map[string]int{}, appended: map[string]int{}}
}

// Append counts the standalone stream's events.
func (s *standaloneStreams) Append(sessionID, streamID string) {
	if streamID != "" {
		return
	}
	s.mu.Lock()
	s.appended[sessionID]++
	s.mu.Unlock()
}

// SessionClosed forgets a session.
func (s *standaloneStreams) SessionClosed(sessionID string) {
	s.mu.Lock()
	delete(s.sent, sessionID)
	delete(s.appended, sessionID)
	s.mu.Unlock()
}

// wrote notes that event index of a session's standalone stream was
// written to a GET stream.
func (s *standaloneStreams) wrote(sessionID string, index int) {
	s.mu.Lock()
	if prev, ok := s.sent[sessionID]; !ok || index > prev {
		s.sent[sessionID] = index
	}
	s.mu.Unlock()
}

// resumeFrom is the index a new GET stream of a session starts after: the
// last one a GET stream was sent, or -1 for none; when the store no longer
// has the events after it, the last one stored, since the SDK refuses a
// stream it cannot replay in full.
func (s *standaloneStreams) resumeFrom(ctx context.Context, sessionID string) int {
	s.mu.Lock()
	index, ok := s.sent[sessionID]
	appended := s.appended[sessionID]
	s.mu.Unlock()
	if !ok {
		index = -1
	}
	next, stop := iter.Pull2(s.store.After(ctx, sessionID, "", index))
	defer stop()
	if _, err, ok := next(); ok && errors.Is(err, mcp.ErrEventsPurged) {
		return appended - 1
	}
	return index
}

// resume is the middleware of streamable HTTP that applies resumeFrom to
// the GETs that open a session's standalone stream, and follows what is
// written to them.
func (s *standaloneStreams) resume(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if r.Method != http.MethodGet || sid == "" {
			next.ServeHTTP(w, r)
			return
		}
		last := r.Header.Values("Last-Event-ID")
		switch {
		case len(last) == 0:
			if i := s.resumeFrom(r.Context(), sid); i >= 0 {
				r = r.Clone(r.Context())
				r.Header.Set("Last-Event-ID", "_"+strconv.Itoa(i))
			}
		case len(last[0]) == 0 || last[0][0] != '_':
			next.ServeHTTP(w, r) // the resumption of a request's stream
			return
		}
		next.ServeHTTP(&standaloneWriter{ResponseWriter: w, streams: s, session: sid}, r)
	})
}

// standaloneWriter is the response to a GET of a standalone stream: it
// notes the index of each event written. The SDK writes an event, its
// "id: _<index>" line included, in one Write.
type standaloneWriter struct {
	http.ResponseWriter
	streams *standaloneStreams
	session string
}

var eventIDLine = []byte("\nid: _")

func (w *standaloneWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	if err == nil {
		// An event starts "event: message\nid: _<index>\n".
		if i := bytes.Index(b, eventIDLine); i >= 0 {
			rest := b[i+len(eventIDLine):]
			if end := bytes.IndexByte(rest, '\n'); end > 0 {
				if index, perr := strconv.Atoi(string(rest[:end])); perr == nil {
					w.streams.wrote(w.session, index)
				}
			}
		}
	}
	return n, err
}

// FlushError flushes, for http.ResponseController.
func (w *standaloneWriter) FlushError() error {
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush flushes, for http.Flusher.
func (w *standaloneWriter) Flush() { _ = w.FlushError() }

// Unwrap gives http.ResponseController the response underneath.
func (w *standaloneWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
