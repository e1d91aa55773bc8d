package host

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// keepAliveWriter is a response that gets keep-alive comments once its
// headers say it is an event stream, or once the calls of its POST have
// all reached the server.
type keepAliveWriter struct {
	http.ResponseWriter
	interval time.Duration
	mu       sync.Mutex
	// stop ends the comments; nil until they start.
	stop                  chan struct{}
	wroteHeader, finished bool
	// streaming is set once the response is under way as a 200 event
	// stream: only then do comments go out.
	streaming bool
	// calls is the number of calls the POST carries, started the number
	// that have reached the server.
	calls, started int
}

func (k *keepAliveWriter) WriteHeader(code int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.writeHeaderLocked(code)
}

func (k *keepAliveWriter) writeHeaderLocked(code int) {
	if k.wroteHeader {
		return
	}
	k.wroteHeader = true
	if k.eventStream() {
		k.Header().Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
		k.streaming = code == http.StatusOK
		if code == http.StatusOK && !k.finished && k.stop == nil {
			k.stop = make(chan struct{})
			go k.commentEvery(k.interval, k.stop)
		}
	}
	k.ResponseWriter.WriteHeader(code)
}

// eventStream reports whether the response is an SSE stream.
func (k *keepAliveWriter) eventStream() bool {
	return strings.HasPrefix(k.Header().Get("Content-Type"), "text/event-stream")
}

// callStarted counts a call of the POST that reached the server; once all
// have, the comments start, and with the first the stream's headers if
// the SDK has not written them by then.
func (k *keepAliveWriter) callStarted() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.started++
	if k.started < k.calls || k.finished || k.stop != nil {
		return
	}
	k.stop = make(chan struct{})
	go k.commentEvery(k.interval, k.stop)
}

// commentEvery writes a comment every interval until stop is closed.
func (k *keepAliveWriter) commentEvery(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			k.comment()
		}
	}
}

// finish ends the comments: nothing is written once the handler returns.
func (k *keepAliveWriter) finish() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.finished = true
	if k.stop != nil {
		close(k.stop)
	}
}

func (k *keepAliveWriter) Write(b []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.writeHeaderLocked(http.StatusOK)
	return k.ResponseWriter.Write(b)
}

// FlushError flushes, for http.ResponseController.
func (k *keepAliveWriter) FlushError() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return http.NewResponseController(k.ResponseWriter).Flush()
}

// Flush flushes, for http.Flusher.
func (k *keepAliveWriter) Flush() { _ = k.FlushError() }

// Unwrap gives http.ResponseController the response underneath.
func (k *keepAliveWriter) Unwrap() http.ResponseWriter { return k.ResponseWriter }

// comment writes a keep-alive comment on a stream that is open, and first
// its headers when nothing has been written yet: a response that is not a
// 200 event stream gets nothing.
func (k *keepAliveWriter) comment() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.finished {
		return
	}
	if !k.wroteHeader {
		if !k.eventStream() {
			return
		}
		k.writeHeaderLocked(http.StatusOK)
	}
	if !k.streaming {
		return // an error answer, or JSON: a comment would corrupt it
	}
	if _, err := io.WriteString(k.ResponseWriter, ": keepalive\n\n"); err == nil {
		_ = http.NewResponseController(k.ResponseWriter).Flush()
	}
}

// heldResponse holds back a response whose status hold picks, with the
// first max bytes of its body, for the writer it is part of to look at
// and write when the handler is done; any other response passes through.
type heldResponse struct {
	http.ResponseWriter
	hold func(code int) bool
	max  int
	held int // the status held back, 0 when none
	body bytes.Buffer
}

// WriteHeader holds the first status hold picks back, and writes any other.
func (h *heldResponse) WriteHeader(code int) {
	if h.held == 0 && h.hold(code) {
		h.held = code
		return
	}
	h.ResponseWriter.WriteHeader(code)
}

// Write keeps the body of a response held back, up to max bytes, and
// writes any other.
func (h *heldResponse) Write(b []byte) (int, error) {
	if h.held != 0 {
		if h.body.Len() < h.max {
			h.body.Write(b)
		}
		return len(b), nil
	}
	return h.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the response underneath.
func (h *heldResponse) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// explainWriter holds back a plain-text 404, 405 or 409 to look at its
// body, and writes it as explainSDKErrors's table says.
type explainWriter struct {
	heldResponse
	explain map[string]string
}

// newExplainWriter wraps w for explainSDKErrors.
func newExplainWriter(w http.ResponseWriter, explain map[string]string) *explainWriter {
	e := &explainWriter{explain: explain}
	e.heldResponse = heldResponse{ResponseWriter: w, max: 4 << 10, hold: func(code int) bool {
		return (code == http.StatusNotFound || code == http.StatusMethodNotAllowed || code == http.StatusConflict) &&
			strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain")
	}}
	return e
}

// finish writes the response held back, explained when the table has its
// body.
func (e *explainWriter) finish() {
	if e.held == 0 {
		return
	}
	body := e.body.Bytes()
	if msg, ok := e.explain[strings.TrimSpace(string(body))]; ok {
		body = []byte(msg + "\n")
		e.Header().Del("Content-Length")
	}
	e.ResponseWriter.WriteHeader(e.held)
	_, _ = e.ResponseWriter.Write(body)
}

// discardResponse is a response nobody reads: the SDK's 202 to a
// cancellation cancelSessionCalls sends on the client's behalf.
type discardResponse map[string][]string

func (d discardResponse) Header() http.Header       { return http.Header(d) }
func (discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (discardResponse) WriteHeader(int)             {}

// notHandledWriter turns the SDK's answer to a request for a method it
// does not serve (on protocols before 2026-07-28, a plain-text 400 "JSON
// RPC not handled: ...") into the JSON-RPC error stdio gives, -32601
// "method not found", so that a client can tell a method the server
// lacks from a broken transport. Any other answer passes through.
type notHandledWriter struct {
	heldResponse // a 400, held back to look at its body
}

// newNotHandledWriter wraps w for streamablePOST.
func newNotHandledWriter(w http.ResponseWriter) *notHandledWriter {
	return &notHandledWriter{heldResponse{ResponseWriter: w, max: 64 << 10, hold: func(code int) bool {
		return code == http.StatusBadRequest
	}}}
}

// finish writes the 400 held back: as a JSON-RPC error when it was the
// SDK's "not handled", as it was otherwise.
func (n *notHandledWriter) finish(r *http.Request, m peekedMessage) {
	if n.held == 0 {
		return
	}
	const prefix = "JSON RPC not handled: "
	if text := n.body.String(); strings.HasPrefix(text, prefix) {
		if note, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
			*note = "method not found"
		}
		writeRPCError(n.ResponseWriter, http.StatusOK, m.ID, jsonrpc.CodeMethodNotFound, fmt.Sprintf("method not found: %q", m.Method))
		return
	}
	n.ResponseWriter.WriteHeader(http.StatusBadRequest)
	_, _ = n.ResponseWriter.Write(n.body.Bytes())
}

// cancelWriter is the response of a POST whose calls are tracked: it drops
// the SSE event that answers one the client cancelled. (The SDK writes each
// event with one Write.)
type cancelWriter struct {
	http.ResponseWriter
	calls map[jsonrpc.ID]*trackedCall
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	if w.anyCancelled() {
		if i := bytes.Index(p, []byte("data: ")); i >= 0 && (i == 0 || p[i-1] == '\n') {
			data, _, _ := bytes.Cut(p[i+len("data: "):], []byte("\n"))
			if id, ok := responseTo(data); ok {
				if c := w.calls[id]; c != nil && c.cancelled.Load() {
					return len(p), nil
				}
			}
		}
	}
	return w.ResponseWriter.Write(p)
}

func (w *cancelWriter) anyCancelled() bool {
	for _, c := range w.calls {
		if c.cancelled.Load() {
			return true
		}
	}
	return false
}

func (w *cancelWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// statusWriter records the status and size of a response. Unwrap lets
// http.ResponseController reach Flush and the deadlines underneath.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sseWriter serializes writes to an SSE stream, so that keep-alive comments
// go between events and never inside one (the SDK writes each event with
// one Write).
type sseWriter struct {
	mu sync.Mutex
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (s *sseWriter) Header() http.Header { return s.w.Header() }

func (s *sseWriter) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.WriteHeader(code)
}

func (s *sseWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *sseWriter) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.rc.Flush()
}

// comment writes an SSE comment line, which clients ignore.
func (s *sseWriter) comment(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := io.WriteString(s.w, ": "+text+"\n\n"); err != nil {
		return err
	}
	return s.rc.Flush()
}
