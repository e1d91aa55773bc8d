package host

import (
	"context"
	crand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// directStream is the event stream of a call the direct path runs
// (http_direct.go), written as the SDK writes the stream of a call: each
// message an SSE event "message" with the ID "<stream>_<index>", stored in
// the session's event store first, after a priming event from 2025-11-25
// on; a client whose connection broke resumes it with a GET and
// Last-Event-ID, which gets the events stored since, then the rest, on
// the direct path while the call runs (directResumption), from the SDK's
// handler, which replays the store, once it has ended.
type directStream struct {
	id, sid string
	store   mcp.EventStore

	mu sync.Mutex
	// w is the response that holds the stream: the POST's, or a GET's
	// that resumed it; nil while none does.
	w http.ResponseWriter
	// held is closed when the answer is written, to let a GET holding
	// the stream end; nil when a POST holds it.
	held chan struct{}
	// lastIdx is the index of the last event written, as the SDK counts
	// it: -1 before the first.
	lastIdx  int
	answered bool
}

// open makes the stream of a direct call of d answered on w, and writes
// its priming event: as the SDK opens the stream of a POST.
func (d *directSession) open(ctx context.Context, store mcp.EventStore, w http.ResponseWriter) (*directStream, error) {
	s := &directStream{id: crand.Text(), sid: d.ss.ID(), store: store, w: w, lastIdx: -1}
	if err := store.Open(ctx, s.sid, s.id); err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.streams[s.id] = s
	d.mu.Unlock()
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Connection", "keep-alive")
	if d.version >= "2025-11-25" {
		// Stored too, so that the indexes of the store and the IDs
		// agree. A store that fails fails the answer's Append too, which
		// says so; the SDK only logs this one.
		_ = store.Append(ctx, s.sid, s.id, nil)
		s.lastIdx++
		_ = writeSSE(w, "prime", s.eventID(s.lastIdx), nil)
	}
	return s, nil
}

// close forgets s once its call has been answered (or its POST ended
// without an answer): a GET resumes it from the store, through the SDK.
func (d *directSession) close(s *directStream) {
	d.mu.Lock()
	delete(d.streams, s.id)
	d.mu.Unlock()
	s.mu.Lock()
	s.answered = true
	if s.held != nil {
		close(s.held)
		s.held = nil
	}
	s.w = nil
	s.mu.Unlock()
}

func (s *directStream) eventID(index int) string { return s.id + "_" + strconv.Itoa(index) }

// send stores msg and writes it to the response that holds the stream, if
// any; answer marks the call's answer, the last message.
func (s *directStream) send(ctx context.Context, msg jsonrpc.Message, answer bool) error {
	data, err := encodeLine(msg)
	if err != nil {
		return err
	}
	data = data[:len(data)-1] // without encodeLine's newline
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answered {
		return errDirectEnded
	}
	if answer {
		s.answered = true
		if s.held != nil {
			defer func() { close(s.held); s.held = nil }()
		}
	}
	var errs []error
	stored := s.store.Append(ctx, s.sid, s.id, data)
	if stored != nil {
		errs = append(errs, stored)
	}
	if s.w == nil {
		errs = append(errs, errors.New("stream not connected"))
		if stored == nil {
			return nil // a GET gets it from the store
		}
		return errors.Join(errs...)
	}
	s.lastIdx++
	if err := writeSSE(s.w, "message", s.eventID(s.lastIdx), data); err != nil && stored != nil {
		return errors.Join(stored, err)
	}
	return nil
}

// release lets go of the stream when w, the response holding it, ends.
func (s *directStream) release(w http.ResponseWriter) {
	s.mu.Lock()
	if s.w == w {
		s.w = nil
	}
	s.mu.Unlock()
}

// writeSSE writes an event, in one Write, as the SDK writes one, and
// flushes it.
func writeSSE(w http.ResponseWriter, name, id string, data []byte) error {
	ev := make([]byte, 0, len(name)+len(id)+len(data)+len("event: \nid: \ndata: \n\n"))
	ev = append(ev, "event: "...)
	ev = append(ev, name...)
	ev = append(ev, "\nid: "...)
	ev = append(ev, id...)
	ev = append(ev, "\ndata: "...)
	ev = append(ev, data...)
	ev = append(ev, "\n\n"...)
	_, err := w.Write(ev)
	_ = http.NewResponseController(w).Flush()
	return err
}

// errDirectEnded is send's error once the call has been answered.
var errDirectEnded = errors.New("the request's stream has ended")

// directResumption reports whether a GET resumes the stream of a direct
// call still running, by Last-Event-ID "<stream>_<index>", with what the
// SDK would accept of such a GET (Accept, the session's user and
// protocol version); after is the index the client has.
func (h *HTTPServer) directResumption(r *http.Request) (_ *directSession, _ *directStream, after int, ok bool) {
	last := r.Header.Values("Last-Event-ID")
	sid := r.Header.Get("Mcp-Session-Id")
	if len(last) == 0 || sid == "" {
		return nil, nil, 0, false
	}
	id, index, found := strings.Cut(last[0], "_")
	n, err := strconv.Atoi(index)
	if !found || err != nil || n < 0 || strings.Contains(index, "_") {
		return nil, nil, 0, false
	}
	d := h.direct.get(sid)
	if d == nil || d.ctx.Err() != nil {
		return nil, nil, 0, false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && v != d.version {
		return nil, nil, 0, false
	}
	if d.userID != "" {
		if ti := auth.TokenInfoFromContext(r.Context()); ti == nil || ti.UserID != d.userID {
			return nil, nil, 0, false
		}
	}
	if _, streamOK := streamAccepts(r.Header.Values("Accept")); !streamOK {
		return nil, nil, 0, false
	}
	d.mu.Lock()
	s := d.streams[id]
	d.mu.Unlock()
	if s == nil {
		return nil, nil, 0, false
	}
	return d, s, n, true
}

// streamAccepts reports whether Accept values take application/json and
// text/event-stream, each, as the SDK reads them.
func streamAccepts(values []string) (jsonOK, streamOK bool) {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			base, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// resume serves a GET that resumes s after the event of index after, as
// the SDK serves one for a stream of its own: the events stored since,
// then the rest as the call sends them, until its answer; 409 while
// another response holds the stream.
func (d *directSession) resume(w http.ResponseWriter, r *http.Request, s *directStream, after int) {
	s.mu.Lock()
	if s.w != nil {
		s.mu.Unlock()
		http.Error(w, "stream ID conflicts with ongoing stream", http.StatusConflict)
		return
	}
	var replay [][]byte
	for data, err := range s.store.After(r.Context(), s.sid, s.id, after) {
		if err != nil {
			s.mu.Unlock()
			http.Error(w, "failed to replay events", http.StatusBadRequest)
			return
		}
		if len(data) > 0 {
			replay = append(replay, data)
		}
	}
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Connection", "keep-alive")
	last := after
	for _, data := range replay {
		last++
		if err := writeSSE(w, "message", s.eventID(last), data); err != nil {
			s.mu.Unlock()
			return
		}
	}
	if s.answered {
		s.mu.Unlock()
		return
	}
	held := make(chan struct{})
	s.w, s.held, s.lastIdx = w, held, last
	s.mu.Unlock()
	select {
	case <-held:
	case <-r.Context().Done():
	case <-d.ctx.Done():
	}
	s.release(w)
}

// directKey is the context key under which a direct call's context holds
// its stream.
type directKey struct{}

// divertNotifications is a sending middleware: a notification a direct
// call sends before its answer (a log line, progress) goes on its stream,
// where the SDK puts the notifications of the calls it runs. Anything
// else goes through the SDK: a notification sent after the answer goes to
// the session's GET stream, as the SDK sends it then. (The SDK has
// filtered a log line by the session's level first.)
func (h *HTTPServer) divertNotifications(next mcp.MethodHandler) mcp.MethodHandler {
	// The traffic log (log_traffic.go), beneath, does not see what is
	// diverted: it is logged here, when the log is on.
	logged := h.srv.logger.Enabled(context.Background(), slog.LevelDebug)
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		s, _ := ctx.Value(directKey{}).(*directStream)
		if s == nil || !strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		params, err := json.Marshal(req.GetParams())
		if err != nil {
			return nil, fmt.Errorf("encoding a notification: %w", err)
		}
		msg := &jsonrpc.Request{Method: method, Params: params}
		ended := false
		send := func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
			err := s.send(ctx, msg, false)
			ended = errors.Is(err, errDirectEnded)
			return nil, err
		}
		if logged && !s.isAnswered() {
			_, err = h.srv.logSent(send)(ctx, method, req)
		} else {
			_, err = send(ctx, method, req)
		}
		if ended {
			return next(ctx, method, req)
		}
		return nil, err
	}
}

func (s *directStream) isAnswered() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered
}
