package host

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionStreams follows the event streams of streamable HTTP sessions, for
// what the SDK does not do by itself when a client opens a GET stream.
//
// The standalone stream is the one a GET without Last-Event-ID opens for
// the server's notifications; its event IDs are "_<index>". The SDK
// starts every such GET at the beginning of the session's stored events,
// so a client that opens a new GET stream (after a proxy closed the last
// one, say) would get every notification it already had again, though the
// spec sends a message on one stream only; and once the store has dropped
// the session's oldest events for room (10 MiB for all sessions), the GET
// fails with 400. resume starts such a GET after the last event a GET
// stream of the session delivered instead: a notification sent while no
// stream was open is still delivered. An event is taken as delivered once
// its stream outlived it by a grace (two keep-alive intervals): a client
// may be gone for that long before a write fails, and what was written to
// it meanwhile is sent again. Notifications on this stream say that
// something changed (list_changed, resources/updated), so one that comes
// twice costs a client a list; one lost would leave it stale.
//
// A request's stream whose answer was dropped because the client cancelled
// the request ends without it; a GET that resumes it, with nothing left to
// replay, gets 204 No Content instead of an empty event stream. Clients
// take a stream that ends without the answer for a broken one: the
// TypeScript SDK's tried again, then once more with no Last-Event-ID,
// which the session's GET stream made a 409, and reported both failures.
type sessionStreams struct {
	store mcp.EventStore
	// grace is how long a stream must outlive an event for the event to
	// count as delivered.
	grace time.Duration
	mu    sync.Mutex
	// sent is the index of the last event a GET stream of the session
	// delivered (see standaloneWriter); appended the number of events
	// stored for its standalone stream.
	sent     map[string]int
	appended map[string]int
	// cancelled holds, for each session, the streams whose answer was
	// dropped.
	cancelled map[string]map[string]bool
	// ended are the sessions closed last (at most maxEndedSessions, the
	// oldest forgotten first): the SDK may append an event of a session
	// it is closing after telling the store it closed, which would make
	// entries again that nothing removes.
	ended      map[string]bool
	endedOrder []string
}

// maxEndedSessions bounds sessionStreams.ended.
const maxEndedSessions = 4096

func newSessionStreams(store mcp.EventStore, grace time.Duration) *sessionStreams {
	return &sessionStreams{store: store, grace: grace, sent: map[string]int{}, appended: map[string]int{}, cancelled: map[string]map[string]bool{}, ended: map[string]bool{}}
}

// Append counts the standalone stream's events, and notes the streams
// whose answer was dropped.
func (s *sessionStreams) Append(sessionID, streamID string, dropped bool) {
	if streamID != "" && !dropped {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended[sessionID] {
		return
	}
	if streamID == "" {
		s.appended[sessionID]++
		return
	}
	if s.cancelled[sessionID] == nil {
		s.cancelled[sessionID] = map[string]bool{}
	}
	s.cancelled[sessionID][streamID] = true
}

// streamEnded reports whether a GET that resumes a request's stream after index
// has nothing to get: the request was cancelled, and what is left of its
// stream is the dropped answer.
func (s *sessionStreams) streamEnded(ctx context.Context, sessionID, streamID string, index int) bool {
	s.mu.Lock()
	cancelled := s.cancelled[sessionID][streamID]
	s.mu.Unlock()
	if !cancelled {
		return false
	}
	for data, err := range s.store.After(ctx, sessionID, streamID, index) {
		if err != nil || len(data) > 0 {
			return false
		}
	}
	return true
}

// SessionClosed forgets a session.
func (s *sessionStreams) SessionClosed(sessionID string) {
	s.mu.Lock()
	delete(s.sent, sessionID)
	delete(s.appended, sessionID)
	delete(s.cancelled, sessionID)
	if !s.ended[sessionID] {
		if len(s.endedOrder) == maxEndedSessions {
			delete(s.ended, s.endedOrder[0])
			s.endedOrder = s.endedOrder[1:]
		}
		s.ended[sessionID] = true
		s.endedOrder = append(s.endedOrder, sessionID)
	}
	s.mu.Unlock()
}

// delivered notes that a GET stream of a session delivered the events of
// its standalone stream up to index.
//
// Every event delivered was appended first, so a session with no count of
// appended events has ended (SessionClosed forgot it): the stream outlived
// its session (a DELETE while it was open), and is not recorded, or the
// entry would stay for the life of the process.
func (s *sessionStreams) delivered(sessionID string, index int) {
	s.mu.Lock()
	if _, live := s.appended[sessionID]; !live {
		s.mu.Unlock()
		return
	}
	if prev, ok := s.sent[sessionID]; !ok || index > prev {
		s.sent[sessionID] = index
	}
	s.mu.Unlock()
}

// resumeFrom is the index a new GET stream of a session starts after: the
// last one a GET stream delivered, or -1 for none; when the store has
// dropped some of the events after it (the SDK refuses a stream it cannot
// replay in full), the one before the oldest it still has.
func (s *sessionStreams) resumeFrom(ctx context.Context, sessionID string) int {
	s.mu.Lock()
	index, ok := s.sent[sessionID]
	appended := s.appended[sessionID]
	s.mu.Unlock()
	if !ok {
		index = -1
	}
	if !s.purged(ctx, sessionID, index) {
		return index
	}
	// The oldest stored: the first index not purged, between index
	// (purged) and the last appended (never purged: nothing follows it).
	lo, hi := index, appended-1
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if s.purged(ctx, sessionID, mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// purged reports whether the store has dropped events after index of a
// session's standalone stream.
func (s *sessionStreams) purged(ctx context.Context, sessionID string, index int) bool {
	next, stop := iter.Pull2(s.store.After(ctx, sessionID, "", index))
	defer stop()
	_, err, ok := next()
	return ok && errors.Is(err, mcp.ErrEventsPurged)
}

// resume is the middleware of streamable HTTP that applies resumeFrom to
// the GETs that open a session's standalone stream, and follows what is
// written to them; and answers 204 to a GET that resumes a stream that
// has ended (see streamEnded).
func (s *sessionStreams) resume(next http.Handler) http.Handler {
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
			// The resumption of a request's stream. Only from 2025-06-18 on
			// does a stream carry one call (earlier protocols batch): before,
			// the dropped answer may be one of several, and the others still
			// to come on the stream.
			if stream, index, ok := strings.Cut(last[0], "_"); ok && r.Header.Get("Mcp-Protocol-Version") >= "2025-06-18" {
				if i, err := strconv.Atoi(index); err == nil && s.streamEnded(r.Context(), sid, stream, i) {
					w.WriteHeader(http.StatusNoContent)
					return
				}
			}
			next.ServeHTTP(w, r)
			return
		}
		sw := &standaloneWriter{ResponseWriter: w, grace: s.grace, settled: -1}
		next.ServeHTTP(sw, r)
		if i := sw.settle(time.Now()); i >= 0 {
			s.delivered(sid, i)
		}
	})
}

// standaloneWriter is the response to a GET of a standalone stream: it
// notes the index of each event written, and when. The SDK writes an
// event, its "id: _<index>" line included, in one Write.
type standaloneWriter struct {
	http.ResponseWriter
	grace time.Duration
	// recent are the events written within grace of the last write;
	// settled is the index of the last one before them, or -1.
	recent  []writtenEvent
	settled int
}

type writtenEvent struct {
	index int
	at    time.Time
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
					now := time.Now()
					w.settle(now)
					w.recent = append(w.recent, writtenEvent{index, now})
				}
			}
		}
	}
	return n, err
}

// settle moves the events written more than grace before now out of
// recent, and returns the index of the last of them (-1: none yet).
func (w *standaloneWriter) settle(now time.Time) int {
	k := 0
	for k < len(w.recent) && now.Sub(w.recent[k].at) > w.grace {
		w.settled = max(w.settled, w.recent[k].index)
		k++
	}
	w.recent = w.recent[k:]
	return w.settled
}

// FlushError flushes, for http.ResponseController.
func (w *standaloneWriter) FlushError() error {
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush flushes, for http.Flusher.
func (w *standaloneWriter) Flush() { _ = w.FlushError() }

// Unwrap gives http.ResponseController the response underneath.
func (w *standaloneWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
