package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sseHandler serves the legacy HTTP+SSE transport (MCP 2024-11-05): GET
// /sse opens a session and its event stream, whose first event names the
// endpoint (/messages?session_id=ID) where the client POSTs its messages;
// replies arrive on the stream as "message" events.
//
// The transport is toolhost's own, not the SDK's SSEServerTransport: that
// one answers a plain-text 400 to the requests it can tell the server
// would refuse (an unknown method, a notification sent with an id, missing
// params), where stdio and /mcp answer them with a JSON-RPC error. Here a
// message is refused over HTTP only when it is not one JSON-RPC message
// that could be answered (see parseSSEMessage); the server answers the
// rest on the stream, under their ids.
type sseHandler struct {
	h *HTTPServer

	mu       sync.Mutex
	sessions map[string]*sseSession
}

// sseIncoming is how many messages POSTed to a session wait to be read
// before a POST waits for room.
const sseIncoming = 100

// sseSession is one SSE session: its stream, the messages POSTed to it and
// not yet read, done, closed when the session's connection closes, and the
// count of calls read but not yet answered, so that a shutdown ends the
// stream only when it has carried every answer.
type sseSession struct {
	id       string
	user     string // the subject of the token that opened it (sseUser)
	group    string // the group of the session's path, or ""
	endpoint string // the endpoint event's data
	stream   *sseWriter
	incoming chan jsonrpc.Message

	done      chan struct{}
	closeOnce sync.Once
	// writeMu orders the writes to the stream with its end: once closed
	// is set nothing more is written (the GET's handler may have
	// returned, and its response is gone).
	writeMu sync.Mutex
	closed  bool

	pending atomic.Int64
	// sawInitialize is set once the session has read initialize.
	sawInitialize atomic.Bool
	// logger notes the calls dropped for an id in use.
	logger *slog.Logger
	// answered is signalled (without blocking) after each answer.
	answered chan struct{}

	// calls holds the calls read and not yet answered, true for those the
	// client cancelled: their answers are dropped, as the spec asks.
	mu    sync.Mutex
	calls map[jsonrpc.ID]bool
}

// Connect implements mcp.Transport: it announces the endpoint on the
// stream. It is called once.
func (s *sseSession) Connect(context.Context) (mcp.Connection, error) {
	if err := s.stream.event("endpoint", []byte(s.endpoint)); err != nil {
		return nil, err
	}
	return &sseConn{Connection: sseStream{s}, s: s}, nil
}

// SupportsProtocolVersion implements mcp.ProtocolVersionSupporter: the
// 2026-07-28 revision defines no HTTP+SSE binding.
func (s *sseSession) SupportsProtocolVersion(v string) bool {
	return v < "2026-07-28"
}

// send writes a message on the stream as a "message" event, unless the
// stream has ended.
func (s *sseSession) send(m jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.closed {
		return io.EOF
	}
	return s.stream.event("message", data)
}

// sseStream is the bare connection of a session: it reads the messages
// POSTed to it and writes on its stream.
type sseStream struct{ s *sseSession }

func (c sseStream) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.s.incoming:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.s.done:
		return nil, io.EOF
	}
}

func (c sseStream) Write(_ context.Context, m jsonrpc.Message) error { return c.s.send(m) }

func (c sseStream) Close() error {
	c.s.writeMu.Lock()
	c.s.closed = true
	c.s.writeMu.Unlock()
	return nil
}

func (c sseStream) SessionID() string { return c.s.id }

// event writes one server-sent event and flushes it.
func (s *sseWriter) event(name string, data []byte) error {
	b := make([]byte, 0, len(name)+len(data)+16)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}

// sseConn is a session's connection as the server sees it: sseStream with
// the session's account of the calls, and a signal when it closes.
type sseConn struct {
	mcp.Connection
	s *sseSession
}

func (c *sseConn) SessionID() string { return c.s.id }

// Read returns the next message of the session. A request whose params
// have a value of the wrong type (see paramsProblem) is answered on the
// stream with an error that names the parameter, as on the other
// transports, and the next message is read instead; before initialize,
// the SDK's refusal, which says to initialize first, answers it.
//
// A call whose id is in use by a call not yet answered is dropped, with a
// warning in the log, as the SDK drops one (an answer under that id would
// be taken for the other call's). The session's own record decides, not
// the SDK's: the SDK frees an id just before it writes the answer, and a
// call that came in between would run without being counted as pending.
func (c *sseConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		m, dup, err := c.read(ctx)
		r, ok := m.(*jsonrpc.Request)
		if dup {
			if c.s.logger != nil {
				c.s.logger.Warn("dropped a call whose id is in use by a call not yet answered; give each call in flight its own id",
					"session", c.s.id, "id", formatID(r.ID), "method", r.Method)
			}
			continue
		}
		if !ok || !r.IsCall() || !c.s.sawInitialize.Load() {
			return m, err
		}
		msg := paramsProblem(r.Method, r.Params)
		if msg == "" {
			return m, err
		}
		resp := &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}}
		if werr := c.Write(ctx, resp); werr != nil {
			return nil, werr
		}
	}
}

// read is Read before the params check: it rewrites null prompt arguments
// and keeps account of the calls. dup reports a call whose id is in use by
// another.
func (c *sseConn) read(ctx context.Context) (m jsonrpc.Message, dup bool, err error) {
	m, err = c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok {
		if p, changed := withoutNullArguments(r.Method, r.Params); changed {
			r.Params = p
		}
		if r.Method == "initialize" {
			c.s.sawInitialize.Store(true)
		}
		switch {
		case r.IsCall():
			c.s.mu.Lock()
			// A call whose id is in use is dropped (see Read); the first
			// call keeps its entry. pending counts the entries.
			if _, dup = c.s.calls[r.ID]; !dup {
				c.s.calls[r.ID] = false
				c.s.pending.Add(1)
			}
			c.s.mu.Unlock()
		case r.Method == "notifications/cancelled":
			if id, ok := cancelledID(r.Params); ok {
				c.s.mu.Lock()
				if _, running := c.s.calls[id]; running {
					c.s.calls[id] = true
				}
				c.s.mu.Unlock()
			}
		}
	}
	return m, dup, err
}

// Write sends a message on the stream, except the answer to a call the
// client cancelled: the spec says none is sent. An error the SDK gives
// without a JSON-RPC code goes out with a standard one, as on stdio (see
// standardError), not as code 0.
func (c *sseConn) Write(ctx context.Context, m jsonrpc.Message) error {
	resp, isResp := m.(*jsonrpc.Response)
	if !isResp {
		return c.Connection.Write(ctx, m)
	}
	if resp.Error != nil {
		resp.Error = standardError(resp.Error)
	}
	c.s.mu.Lock()
	cancelled, tracked := c.s.calls[resp.ID]
	delete(c.s.calls, resp.ID)
	c.s.mu.Unlock()
	var err error
	if !cancelled {
		err = c.Connection.Write(ctx, m)
	}
	if tracked {
		c.s.pending.Add(-1)
	}
	select {
	case c.s.answered <- struct{}{}:
	default:
	}
	return err
}

// cancelledID is the requestId of notifications/cancelled.
func cancelledID(params json.RawMessage) (jsonrpc.ID, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	return id, err == nil
}

func (c *sseConn) Close() error {
	err := c.Connection.Close()
	c.s.closeOnce.Do(func() { close(c.s.done) })
	return err
}

// has reports whether id is the ID of an SSE session.
func (s *sseHandler) has(id string) bool {
	if id == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id] != nil
}

// serveStream serves GET /sse.
func (s *sseHandler) serveStream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		http.Error(w, "method not allowed: open the SSE stream with GET /sse, then POST messages to the endpoint its first event names", http.StatusMethodNotAllowed)
		return
	}
	if s.h.shutting.Load() {
		http.Error(w, "toolhost is shutting down; connect again", http.StatusServiceUnavailable)
		return
	}
	if s.h.atSessionLimit() {
		s.h.logger.Warn("a new SSE session was refused: the server has as many as --max-sessions allows", "max_sessions", s.h.opts.MaxSessions)
		w.Header().Set("Retry-After", "30")
		http.Error(w, fmt.Sprintf("the server has %d sessions open, as many as it takes (its operator sets the number with --max-sessions); try again later", s.h.opts.MaxSessions), http.StatusServiceUnavailable)
		return
	}
	id := rand.Text()
	sw := &sseWriter{w: w, rc: http.NewResponseController(w)}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	endpoint := "/messages?session_id="
	if g := r.Header.Get(groupHeader); g != "" {
		endpoint = "/sse/" + g + "/messages?session_id="
	}
	sess := &sseSession{
		id:       id,
		user:     sseUser(r),
		group:    r.Header.Get(groupHeader),
		endpoint: endpoint + id,
		stream:   sw,
		incoming: make(chan jsonrpc.Message, sseIncoming),
		done:     make(chan struct{}),
		answered: make(chan struct{}, 1),
		calls:    map[jsonrpc.ID]bool{},
		logger:   s.h.logger,
	}
	s.mu.Lock()
	s.sessions[id] = sess
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.sessions, id)
		s.mu.Unlock()
	}()
	ss, err := s.h.srv.MCP().Connect(r.Context(), sess, nil)
	if err != nil {
		s.h.logger.Error("cannot start an SSE session", "error", err)
		http.Error(w, "cannot start the session", http.StatusInternalServerError)
		return
	}
	defer ss.Close()
	var tick <-chan time.Time
	if s.h.opts.SSEKeepAlive > 0 {
		t := time.NewTicker(s.h.opts.SSEKeepAlive)
		defer t.Stop()
		tick = t.C
	}
	// A shutdown ends the stream a moment after it carried every answer.
	shutdown := s.h.streamsCtx.Done()
	var linger <-chan time.Time
	for {
		select {
		case <-r.Context().Done():
			return
		case <-sess.done:
			return
		case <-tick:
			if sw.comment("keepalive") != nil {
				return
			}
		case <-shutdown:
			shutdown = nil
			if sess.pending.Load() <= 0 {
				linger = time.After(sseLinger)
			}
		case <-sess.answered:
			if shutdown == nil && linger == nil && sess.pending.Load() <= 0 {
				linger = time.After(sseLinger)
			}
		case <-linger:
			return
		}
	}
}

// serveMessage serves POST /messages?session_id=ID (also /messages/, and
// the query names sessionid and sessionId): the message goes to the
// session, 202 Accepted, and its reply arrives on the session's stream,
// an error reply too. Only a body that is not one JSON-RPC message to
// answer under an id gets an HTTP error (see parseSSEMessage), with what is
// wrong with the request itself: no session, a wrong content type, a body
// too large (see guard).
func (s *sseHandler) serveMessage(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed: POST JSON-RPC messages here; open the stream with GET /sse", http.StatusMethodNotAllowed)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "unsupported media type: send the message with Content-Type: application/json", http.StatusUnsupportedMediaType)
		return
	}
	q := r.URL.Query()
	id := q.Get("session_id")
	if id == "" {
		id = q.Get("sessionid")
	}
	if id == "" {
		id = q.Get("sessionId")
	}
	if id == "" {
		http.Error(w, "missing session_id: POST to the endpoint that the GET /sse stream announced in its first event, as in /messages?session_id=ID", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	sess := s.sessions[id]
	s.mu.Unlock()
	if sess == nil || sess.group != r.Header.Get(groupHeader) {
		sessionGone(w, r)
		return
	}
	if !sseSameUser(w, r, sess) {
		return
	}
	var data []byte
	if body, ok := r.Body.(*readBody); ok { // guard read it
		data = body.data
	}
	m, bad := parseSSEMessage(data)
	switch {
	case bad == nil:
	case bad.id == nil:
		refuse(w, r, http.StatusBadRequest, "not a JSON-RPC message", bad.text)
		return
	default:
		// Answered on the stream, as the server answers a request it
		// refuses; the POST itself was fine.
		if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
			*n = "invalid request"
		}
		resp := &jsonrpc.Response{ID: *bad.id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: bad.text}}
		if sess.send(resp) != nil {
			sessionGone(w, r)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	withTokenInfo(m, r)
	if req, ok := m.(*jsonrpc.Request); ok && s.h.srv.observe.tracing() {
		markRequestID(r.Header, req.ID) // for the observer (telemetry.go)
	}
	if s.answerSSETask(sess, m) {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	select {
	case sess.incoming <- m:
		w.WriteHeader(http.StatusAccepted)
	case <-sess.done:
		sessionGone(w, r)
	case <-r.Context().Done():
	}
}

// sessionGone answers a POST to a session that has ended, or never was.
func sessionGone(w http.ResponseWriter, r *http.Request) {
	refuse(w, r, http.StatusNotFound, "session not found", "session not found: it ended or never existed; open a new one with GET /sse")
}

// sseRefusal is why a message POSTed to an SSE session is not handed to
// the server: id is the request's id to answer under, on the stream; nil
// when there is none, and the POST is refused with text.
type sseRefusal struct {
	id   *jsonrpc.ID
	text string
}

// parseSSEMessage decodes a message POSTed to an SSE session, as stdio
// decodes a line. What is not one JSON-RPC message with an id (not JSON, a
// batch, no id to be found) is refused over HTTP: no answer on the stream
// could be matched to it. A request for a method that is no notification,
// sent without an id, is refused too, saying to give it one: the server
// would drop it without a word. A malformed message with an id is
// answered under it with Invalid Request. Everything else goes to the
// server, which answers on the stream what it refuses (an unknown method
// with -32601, as on the other transports).
func parseSSEMessage(data []byte) (jsonrpc.Message, *sseRefusal) {
	const howTo = `: send one JSON-RPC 2.0 message per POST, as in {"jsonrpc":"2.0","id":1,"method":"ping"}`
	b := bytes.TrimSpace(data)
	switch {
	case !utf8.Valid(b):
		return nil, &sseRefusal{text: "the body is not valid UTF-8" + howTo}
	case !json.Valid(b):
		return nil, &sseRefusal{text: "the body is not valid JSON" + howTo}
	case b[0] == '[':
		return nil, &sseRefusal{text: "the body is a batch, and batches are not supported" + howTo}
	}
	m, err := decodeChecked(b)
	if err != nil {
		if id := rawID(b); id != nil {
			return nil, &sseRefusal{id: id, text: "Invalid Request: " + err.Error()}
		}
		return nil, &sseRefusal{text: "the body is not a JSON-RPC 2.0 message: " + err.Error() + howTo}
	}
	if r, ok := m.(*jsonrpc.Request); ok && !r.IsCall() && !strings.HasPrefix(r.Method, "notifications/") {
		return nil, &sseRefusal{text: fmt.Sprintf(`%q was sent without an "id", as a notification, but it is not one `+
			`(notification methods start with "notifications/"): send it with an "id", and its answer comes on the stream under that id`, r.Method)}
	}
	return m, nil
}
