package host

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"
)

// The direct path of streamable HTTP sessions. The SDK's handler decodes a
// session's POST with six new JSON decoders of 32 KiB each (to find what
// it carries, to look for a _meta in it, then the params), about 200 KB of
// garbage a request, before a goroutine of its own runs it. A plain
// tools/call of an established session (params of a name and arguments
// only, on the protocol the session negotiated) needs none of that:
// directPOST decodes it once and runs it on the POST's own goroutine
// through the server's whole receiving middleware (the HTTP front end's,
// the observer's, receive and the SDK's handling beneath them), then
// writes the answer itself, as an SSE event of the POST's response, as the
// SDK does. Every HTTP middleware above the SDK's handler (guard, auth,
// access log, idle timer, call tracking, keep-alive comments) has run on
// it by then, as for any POST.
//
// The answer's stream is written and stored as the SDK writes and stores
// one (a priming event from 2025-11-25 on, event IDs, the session's event
// store), so that a client whose connection breaks during the call resumes
// it with Last-Event-ID (see directStream). The log and progress notifications a call sends on the way go on the
// same stream before its answer (divertNotifications), as through the
// SDK. A call that may send the client a request (confirm, ask) or that
// may become a task goes through the SDK, and so does every other POST.

// directSession is what the direct path knows of a session of the SDK's
// streamable handler, learned when its initialize succeeded.
type directSession struct {
	ss *mcp.ServerSession
	// userID is the user the SDK bound the session to (the token's
	// UserID at initialize); "" when none.
	userID string
	// version is the protocol version the session negotiated: a POST
	// with another Mcp-Protocol-Version goes through the SDK.
	version string
	// ctx ends when the session closes: its direct calls are cancelled,
	// as the SDK cancels its calls then.
	ctx    context.Context
	cancel context.CancelFunc

	mu sync.Mutex
	// streams are the streams of its direct calls in flight, by ID, for
	// a GET to resume.
	streams map[string]*directStream
}

// directSessions maps the IDs of the sessions the direct path may serve
// to what it knows of them.
type directSessions struct {
	m sync.Map // string → *directSession
}

// learn records ss, whose initialize just succeeded for userID.
func (d *directSessions) learn(ss *mcp.ServerSession, userID string) {
	ip := ss.InitializeParams()
	if ip == nil || ip.ProtocolVersion == "" || ip.ProtocolVersion >= "2026-07-28" {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.m.Store(ss.ID(), &directSession{ss: ss, userID: userID, version: ip.ProtocolVersion, ctx: ctx, cancel: cancel, streams: map[string]*directStream{}})
}

// forget drops a session that closed, and cancels its direct calls.
func (d *directSessions) forget(sid string) {
	if v, ok := d.m.LoadAndDelete(sid); ok {
		v.(*directSession).cancel()
	}
}

func (d *directSessions) get(sid string) *directSession {
	if v, ok := d.m.Load(sid); ok {
		return v.(*directSession)
	}
	return nil
}

// refuseForeignUser answers 403, as the SDK's handler answers it, a
// request naming a session bound to another user than its token's, and
// reports whether it did. It goes before anything that acts on the
// session by its ID alone (the cancellations of trackCalls and of a
// DELETE, the direct path), so that a token of another subject that has
// learned a session's ID cannot stop its calls.
func (h *HTTPServer) refuseForeignUser(w http.ResponseWriter, r *http.Request) bool {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		return false
	}
	d := h.direct.get(sid)
	if d == nil || d.userID == "" {
		return false
	}
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil && ti.UserID == d.userID {
		return false
	}
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = "session user mismatch"
	}
	http.Error(w, "session user mismatch", http.StatusForbidden)
	return true
}

// directHTTPTaken counts the POSTs the direct path served, for tests.
var directHTTPTaken atomic.Int64

// directMiddleware is the outermost receiving middleware of a server with
// streamable HTTP sessions: it keeps the whole chain beneath it (h.top),
// which the direct path calls, and learns each session whose initialize
// succeeds.
//
// A receiving middleware added to the SDK's server after NewHTTPServer
// would be outside it, and the direct path would skip it: toolhost adds
// none, and tests add theirs with addReceivingMiddleware.
func (h *HTTPServer) directMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	h.top.Store(&next)
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "initialize" && err == nil {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.ID() != "" && !h.sse.has(ss.ID()) {
				userID := ""
				if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
					userID = ex.TokenInfo.UserID
				}
				h.direct.learn(ss, userID)
				if !h.hasSession(ss.ID()) {
					h.direct.forget(ss.ID()) // closed meanwhile
				}
			}
		}
		return res, err
	}
}

// addReceivingMiddleware adds mw to the SDK server's receiving middleware,
// the outermost, on the direct path too.
func (h *HTTPServer) addReceivingMiddleware(mw mcp.Middleware) {
	h.srv.MCP().AddReceivingMiddleware(mw)
	if top := h.top.Load(); top != nil {
		outer := mw(*top)
		h.top.Store(&outer)
	}
}

// directPOST serves the POSTs the direct path takes (see directRequest),
// and the GETs that resume their streams while their calls run (see
// directResumption); it hands every other request to next, the SDK's
// handler.
func (h *HTTPServer) directPOST(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.directOff.Load() || h.top.Load() == nil {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet {
			if d, s, after, ok := h.directResumption(r); ok {
				d.resume(w, r, s, after)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		d, req, call, ok := h.directRequest(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		// The call is tracked (trackCalls) unless its id is in flight on
		// the session already, on the direct path or the SDK's: refused
		// as the SDK refuses it.
		tc := trackedIn(w, req.ID)
		if tc == nil {
			writeRPCError(w, http.StatusBadRequest, req.ID.Raw(), jsonrpc.CodeInvalidRequest, fmt.Sprintf("duplicate in-flight request ID %v", req.ID.Raw()))
			return
		}
		h.serveDirect(w, r, d, req, call, tc)
	})
}

// directDuplicate reports the first call of msgs, a POST of session sid,
// whose id is that of a call the direct path runs on the session: the SDK,
// which does not know that call, would run a POST reusing its id, where
// it refuses one that reuses the id of a call of its own.
func (t *callTracker) directDuplicate(sid string, msgs []peekedMessage) (jsonrpc.ID, bool) {
	for i := range msgs {
		if !msgs[i].isCall() {
			continue
		}
		id, err := jsonrpc.MakeID(msgs[i].ID)
		if err != nil {
			continue
		}
		t.mu.Lock()
		c := t.calls[trackedKey{sid, id}]
		t.mu.Unlock()
		if c != nil && c.stop.Load() != nil {
			return id, true
		}
	}
	return jsonrpc.ID{}, false
}

// directCallParams are the params of a tools/call as stdio's direct path
// reads them, and the tasks extension's task, kept raw to tell an absent
// one.
type directCallParams struct {
	plainCallParams
	Task json.RawMessage `json:"task"`
}

// directRequest decodes a POST the direct path serves: a single plain
// tools/call (see plainCall) with an id, of a session the SDK serves that
// was learned at its initialize, sent by the user the session is bound to
// with the protocol version it negotiated, with the Content-Type and
// Accept the SDK requires, of a tool that cannot ask the client anything
// nor become a task. ok is false for any other POST, which the SDK serves.
func (h *HTTPServer) directRequest(r *http.Request) (_ *directSession, _ *jsonrpc.Request, _ *mcp.CallToolRequest, ok bool) {
	body, _ := r.Body.(*readBody)
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Method != http.MethodPost || body == nil || sid == "" || len(r.Header.Values("Last-Event-ID")) > 0 {
		return nil, nil, nil, false
	}
	d := h.direct.get(sid)
	if d == nil || d.ctx.Err() != nil || r.Header.Get("Mcp-Protocol-Version") != d.version {
		return nil, nil, nil, false
	}
	if d.userID != "" {
		if ti := auth.TokenInfoFromContext(r.Context()); ti == nil || ti.UserID != d.userID {
			return nil, nil, nil, false
		}
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" || !acceptsBoth(r.Header.Values("Accept")) {
		return nil, nil, nil, false
	}
	if newProtocolPOST(r, body.data) {
		return nil, nil, nil, false
	}
	msg, err := decodeMessage(body.data)
	if err != nil {
		return nil, nil, nil, false
	}
	req, isReq := msg.(*jsonrpc.Request)
	if !isReq || !req.IsCall() || req.Method != "tools/call" {
		return nil, nil, nil, false
	}
	name, args, ok := directCall(req.Params)
	if !ok {
		return nil, nil, nil, false
	}
	if reg := h.srv.current.Load(); reg != nil {
		if t, found := reg.Tool(name); found && (t.Confirm != nil || t.Ask != nil || t.Task != "") {
			return nil, nil, nil, false
		}
	}
	call := &mcp.CallToolRequest{
		Session: d.ss,
		Params:  &mcp.CallToolParamsRaw{Name: name, Arguments: args},
		Extra:   &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header},
	}
	return d, req, call, true
}

// directCall reads the name and arguments of a plain tools/call: params
// with nothing else the SDK or toolhost reads (no _meta, so no progress
// token; no input responses, request state or task); ok is false for any
// other, and for params the SDK would refuse.
func directCall(params json.RawMessage) (name string, args json.RawMessage, ok bool) {
	if len(params) == 0 || params[0] != '{' {
		return "", nil, false
	}
	var p directCallParams
	if _, err := sjson.Parse(params, &p, sjson.DontMatchCaseInsensitiveStructFields); err != nil || p.Task != nil {
		return "", nil, false
	}
	return plainCall(params)
}

// trackedIn finds, under the wrappers of w, the call tracking of the
// POST (trackCalls' cancelWriter), and returns the call with id, or nil.
func trackedIn(w http.ResponseWriter, id jsonrpc.ID) *trackedCall {
	for w != nil {
		if cw, ok := w.(*cancelWriter); ok {
			return cw.calls[id]
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

// serveDirect runs call, the request req of a POST of session d, through
// the server's receiving middleware and writes its answer on the POST's
// response, an SSE stream, with the notifications it sends on the way, as
// the SDK writes them (see directStream).
//
// Its context has the POST's values, as the SDK's has its connection's,
// and is cancelled when the client cancels the call (tc: a
// notifications/cancelled, or the DELETE of the session) or the session
// closes; not when the client goes away: the SDK runs such a call to its
// end too, and keeps its answer for the client to resume the stream.
func (h *HTTPServer) serveDirect(w http.ResponseWriter, r *http.Request, d *directSession, req *jsonrpc.Request, call *mcp.CallToolRequest, tc *trackedCall) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	defer context.AfterFunc(d.ctx, cancel)()
	tc.onCancel(cancel)
	s, err := d.open(ctx, h.events, w)
	if err != nil {
		http.Error(w, fmt.Sprintf("storing stream: %v", err), http.StatusInternalServerError)
		return
	}
	defer d.close(s)
	// The client's leaving lets a GET resume the stream.
	defer context.AfterFunc(r.Context(), func() { s.release(w) })()
	directHTTPTaken.Add(1)
	res, err := (*h.top.Load())(context.WithValue(ctx, directKey{}, s), "tools/call", call)
	if d.ctx.Err() != nil {
		return // the session is closed: the SDK's stream ends without the answer
	}
	resp := &jsonrpc.Response{ID: req.ID}
	switch {
	case err != nil:
		resp.Error = err
	case res == nil:
		resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the tool call returned no result"}
	default:
		raw, merr := marshalResult(res)
		if merr != nil {
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "encoding the result: " + merr.Error()}
		}
		resp.Result = raw
	}
	// The id is free once the answer is written, as the SDK frees it: a
	// client may reuse it the moment it reads the answer, before this POST
	// has ended. A cancelled call keeps its entry, which keeps its answer
	// out of the stream and the store.
	if !tc.cancelled.Load() {
		h.calls.remove(d.ss.ID(), req.ID, tc)
	}
	if werr := s.send(ctx, resp, true); werr != nil {
		h.logger.Debug("writing the answer to a tool call failed", "error", werr)
	}
}

// onCancel has cancel called when the call is cancelled by the client, or
// at once if it was already.
func (c *trackedCall) onCancel(cancel context.CancelFunc) {
	c.stop.Store(&cancel)
	if c.cancelled.Load() {
		cancel()
	}
}
