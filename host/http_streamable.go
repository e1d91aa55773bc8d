package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"
	"github.com/toolhost/toolhost/internal/jsondepth"
)

// explainSDKErrors replaces the SDK's terse plain-text answers to requests
// a client can get wrong on /mcp with ones that say why and what to do,
// keeping their status codes, which clients act on (404 tells a client to
// start a new session).
func (h *HTTPServer) explainSDKErrors(next http.Handler) http.Handler {
	explain := map[string]string{
		"session not found": "session not found: no session has this Mcp-Session-Id (it was ended with DELETE, closed after --session-idle-timeout without requests, or the server restarted); " +
			"start a new one: send initialize without the Mcp-Session-Id header, then send the ID its response returns",
		"stream ID conflicts with ongoing stream": "Conflict: the stream this GET asks for is already open on another connection: a session has one GET stream for notifications, and a request's stream resumes on one connection at a time. " +
			"Keep the open one, or close it first (a connection whose client went away is closed once writes to it fail, within about a minute)",
	}
	if h.opts.Stateless {
		explain["Method Not Allowed"] = "Method Not Allowed: this server runs with --stateless, so it keeps no sessions: there is no GET stream for notifications and no session to DELETE; send every request with POST"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !h.opts.Stateless && r.Header.Get("Mcp-Session-Id") == "" {
			// No answer to a POST that starts a session needs explaining:
			// it is left as it is written, with no wrapper.
			next.ServeHTTP(w, r)
			return
		}
		ew := newExplainWriter(w, explain)
		defer ew.finish()
		next.ServeHTTP(ew, r)
	})
}

// endOnShutdown ends a streamable HTTP GET that waits for server messages
// when a shutdown starts: its request's context is cancelled, which the SDK
// takes as the client leaving. A GET that resumes the stream of a request
// (Last-Event-ID naming it) carries that request's answer and is left to
// finish like a POST; the SDK's event IDs are "<stream>_<index>", and the
// standalone stream's ID is empty.
func (h *HTTPServer) endOnShutdown(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			if id := r.Header.Get("Last-Event-ID"); id == "" || strings.HasPrefix(id, "_") {
				ctx, cancel := context.WithCancel(r.Context())
				defer cancel()
				stop := context.AfterFunc(h.streamsCtx, cancel)
				defer stop()
				r = r.WithContext(ctx)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// streamablePOST looks into the POSTs to /mcp before the SDK's handler
// serves them.
//
// A request whose params have a value of the wrong type gets a JSON-RPC
// error that names the parameter (see paramsProblem), in either mode, and
// so does a call whose Mcp-Param-* headers disagree with its arguments
// (see paramHeadersProblem).
//
// On a server with sessions (a stateless request is a session of its own:
// no notification can cancel it, and none needs a session ID), a POST
// without Mcp-Session-Id that does not initialize gets 400 with a JSON-RPC
// error saying what to send, as the spec asks of servers that require
// sessions (the SDK would make it a session that refuses it), and the
// calls of a POST are tracked until it ends, and notifications/cancelled
// marks them; the answer to a call the client cancelled is then dropped
// from its stream, which ends without it (the spec says no response is sent
// for a cancelled request).
func (h *HTTPServer) streamablePOST(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.refuseForeignUser(w, r) { // http_direct.go
			return
		}
		if r.Method == http.MethodDelete && !h.opts.Stateless {
			h.cancelSessionCalls(next, r)
			next.ServeHTTP(w, r)
			return
		}
		body, _ := r.Body.(*readBody)
		if r.Method != http.MethodPost || body == nil {
			next.ServeHTTP(w, r)
			return
		}
		msgs, batch, ok := peekMessages(body.data)
		if ok && !batch && len(msgs) == 1 && msgs[0].isCall() && h.srv.observe.tracing() {
			if id, err := jsonrpc.MakeID(msgs[0].ID); err == nil {
				markRequestID(r.Header, id) // for the observer (telemetry.go)
			}
		}
		// From 2026-07-28 on, the SDK may answer a call after it has
		// started with a plain JSON error and a status of its own (a
		// protocol-level error, SEP-2575), setting the headers then: such
		// a stream is left to start with its first event.
		if n := countCalls(msgs); n > 0 && !newProtocolPOST(r, body.data) {
			r = r.WithContext(context.WithValue(r.Context(), postCallsKey{}, n))
		}
		if sid := r.Header.Get("Mcp-Session-Id"); !ok && sid != "" && !h.opts.Stateless && !h.hasSession(sid) {
			// A session that is gone is said first (404, so that the
			// client starts a new one), whatever the body.
			next.ServeHTTP(w, r)
			return
		}
		if !ok {
			// A body that is not JSON gets the JSON-RPC parse error, as a
			// line that is not JSON does on stdio (the SDK answers it in
			// plain text); anything else that is not JSON-RPC, the SDK
			// answers.
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" && !jsondepth.TooDeep(body.data, maxDepth) && !json.Valid(body.data) {
				if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
					*n = "parse error"
				}
				writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "Parse error: the body is not valid JSON")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		sid := r.Header.Get("Mcp-Session-Id")
		serve := next
		switch {
		case sid != "" || h.opts.Stateless:
		case sessionlessPOST(r, body.data, msgs):
			serve = h.sessionless
			r = r.WithContext(context.WithValue(r.Context(), sessionlessKey{}, true))
		default:
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" && !startsSession(msgs) {
				refuseWithoutSession(w, r, msgs)
				return
			}
			if startsSession(msgs) && h.atSessionLimit() {
				h.refuseSession(w, r, msgs)
				return
			}
		}
		if slices.ContainsFunc(msgs, func(m peekedMessage) bool { return m.Method == "subscriptions/listen" }) {
			release, ok := h.admitListen(w, r, msgs, len(body.data))
			if !ok {
				return
			}
			defer release()
		}
		if data, changed := withoutNullArgumentsInBody(body.data, msgs, batch); changed {
			r.Body = &readBody{Reader: bytes.NewReader(data), data: data}
			r.ContentLength = int64(len(data))
		}
		if !batch && len(msgs) == 1 && msgs[0].isCall() {
			if msg := paramsProblem(msgs[0].Method, msgs[0].Params); msg != "" {
				refuseParams(w, r, msgs[0].ID, msg)
				return
			}
			if h.refuseItemScopes(w, r, &msgs[0]) {
				return
			}
			msg := standardHeadersProblem(r)
			if msg == "" {
				msg = h.paramHeadersProblem(r, body.data, &msgs[0])
			}
			if msg != "" {
				refuseHeaders(w, r, msgs[0].ID, msg)
				return
			}
			nw := newNotHandledWriter(w)
			defer nw.finish(r, msgs[0])
			w = nw
		}
		if sid == "" || h.opts.Stateless {
			serve.ServeHTTP(w, r)
			return
		}
		if id, dup := h.calls.directDuplicate(sid, msgs); dup { // http_direct.go
			writeRPCError(w, http.StatusBadRequest, id.Raw(), jsonrpc.CodeInvalidRequest, fmt.Sprintf("duplicate in-flight request ID %v", id.Raw()))
			return
		}
		w, untrack := h.trackCalls(w, sid, msgs)
		defer untrack()
		next.ServeHTTP(w, r)
	})
}

// admitListen checks a subscriptions/listen POST of size bytes against the
// limits on listen streams and, when it is within them, counts its bytes
// among those the open streams hold until release is called; otherwise it
// answers the POST with why and reports false.
func (h *HTTPServer) admitListen(w http.ResponseWriter, r *http.Request, msgs []peekedMessage, size int) (release func(), ok bool) {
	if size > maxListenBody {
		refuseListen(w, r, msgs, http.StatusRequestEntityTooLarge, "listen body too large", jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("the subscriptions/listen request is %d bytes long, longer than the %d bytes toolhost takes for one (it holds the request for as long as the stream is open); list each resource URI once, and open another stream for the rest", size, maxListenBody))
		return nil, false
	}
	n := int64(size)
	if held := h.listenBytes.Add(n); held > maxListenBodies {
		h.listenBytes.Add(-n)
		h.logger.Warn("a subscriptions/listen stream was refused: the open streams hold as many bytes of requests as toolhost allows", "max_listen_bytes", maxListenBodies)
		w.Header().Set("Retry-After", "30")
		refuseListen(w, r, msgs, http.StatusServiceUnavailable, "listen streams full", jsonrpc.CodeInternalError,
			fmt.Sprintf("the open subscriptions/listen streams hold %d bytes of requests, and this one would take them past the %d toolhost allows in all; try again later, and close the streams you no longer read", held-n, maxListenBodies))
		return nil, false
	}
	if h.sessionlessRequest(r) && h.atSessionLimit() {
		// Each stream is a session of its own, open as long as
		// the stream is.
		h.logger.Warn("a subscriptions/listen stream was refused: the server has as many sessions open as --max-sessions allows", "max_sessions", h.opts.MaxSessions)
		w.Header().Set("Retry-After", "30")
		refuseListen(w, r, msgs, http.StatusServiceUnavailable, "too many sessions", jsonrpc.CodeInternalError,
			fmt.Sprintf("the server has %d sessions open, subscriptions/listen streams included, as many as it takes (its operator sets the number with --max-sessions); try again later, and close the streams you no longer read", h.opts.MaxSessions))
		h.listenBytes.Add(-n)
		return nil, false
	}
	return func() { h.listenBytes.Add(-n) }, true
}

// trackCalls follows the calls of a POST on session sid until untrack is
// called, and marks those that a notifications/cancelled of the POST
// names; the answers to calls the client cancelled are then dropped from
// the w it returns.
func (h *HTTPServer) trackCalls(w http.ResponseWriter, sid string, msgs []peekedMessage) (_ http.ResponseWriter, untrack func()) {
	var mine map[jsonrpc.ID]*trackedCall
	for _, m := range msgs {
		switch {
		case m.isCall():
			id, err := jsonrpc.MakeID(m.ID)
			if err != nil {
				continue
			}
			if c := h.calls.add(sid, id); c != nil {
				if mine == nil {
					mine = map[jsonrpc.ID]*trackedCall{}
				}
				mine[id] = c
			}
		case m.Method == "notifications/cancelled":
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(m.Params, &p) == nil && p.RequestID != nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
					h.calls.cancel(sid, id)
				}
			}
		}
	}
	if mine != nil {
		w = &cancelWriter{ResponseWriter: w, calls: mine}
	}
	return w, func() {
		for id, c := range mine {
			h.calls.remove(sid, id, c)
		}
	}
}

// countCalls counts the requests among msgs that expect an answer.
func countCalls(msgs []peekedMessage) int {
	n := 0
	for i := range msgs {
		if msgs[i].isCall() {
			n++
		}
	}
	return n
}

// peekedMessage is what streamablePOST reads of a JSON-RPC message.
type peekedMessage struct {
	ID     any             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (m *peekedMessage) isCall() bool { return m.Method != "" && m.ID != nil }

func (m *peekedMessage) isResponse() bool {
	return m.Method == "" && m.ID != nil && (m.Result != nil || m.Error != nil)
}

// peekMessages decodes a POST body: one message or a batch (batch true).
// It reports false for what is not JSON-RPC, or nests deeper than the SDK
// allows (the SDK answers those). Keys match case-sensitively, as the SDK
// reads them: a "Params" key is none.
func peekMessages(body []byte) (msgs []peekedMessage, batch, ok bool) {
	body = bytes.TrimLeft(body, " \t\r\n")
	// segmentio's parser recurses once per level, without a limit: a body
	// of a million brackets would overflow the stack and end the process.
	// Past the SDK's own limit, the SDK answers (with its depth error).
	if jsondepth.TooDeep(body, maxDepth) {
		return nil, false, false
	}
	if len(body) > 0 && body[0] == '[' {
		var ms []peekedMessage
		if _, err := sjson.Parse(body, &ms, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
			return nil, true, false
		}
		return ms, true, true
	}
	var m peekedMessage
	if _, err := sjson.Parse(body, &m, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return nil, false, false
	}
	return []peekedMessage{m}, false, true
}

// newProtocolPOST reports whether a POST is of the 2026-07-28 protocol or
// a later one: its version header says so, or its body carries the
// version in _meta, as that protocol's requests do.
func newProtocolPOST(r *http.Request, body []byte) bool {
	return r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" || bytes.Contains(body, []byte(mcp.MetaKeyProtocolVersion))
}

// sessionlessPOST reports whether a POST without Mcp-Session-Id, to a
// server that keeps sessions, is served without one, beside the sessions:
// it is of the 2026-07-28 protocol, which has none, or it only asks
// server/discover, whose answer then lists every version toolhost serves.
// A POST that initializes starts a session, unless its version header
// names the sessionless protocol (whose server answers that the method is
// gone).
func sessionlessPOST(r *http.Request, body []byte, msgs []peekedMessage) bool {
	if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
		return true
	}
	if startsSession(msgs) {
		return false
	}
	if newProtocolPOST(r, body) {
		return true
	}
	return len(msgs) > 0 && !slices.ContainsFunc(msgs, func(m peekedMessage) bool { return m.Method != "server/discover" })
}

// sessionlessKey is the request context key that marks a POST that
// streamablePOST serves without a session on a server that keeps them.
type sessionlessKey struct{}

// sessionlessRequest reports whether r is served without a session: the
// server runs with --stateless, or r is of the sessionless protocol.
func (h *HTTPServer) sessionlessRequest(r *http.Request) bool {
	return h.opts.Stateless || r.Context().Value(sessionlessKey{}) != nil
}

// refuseWithoutSession answers 400 Bad Request with a JSON-RPC error (with
// the request's id, when the body is one request) to a POST that needs
// Mcp-Session-Id and has none.
func refuseWithoutSession(w http.ResponseWriter, r *http.Request, msgs []peekedMessage) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = "no session id"
	}
	var id any
	if len(msgs) == 1 && msgs[0].isCall() {
		id = msgs[0].ID
	}
	what := "this message"
	if len(msgs) == 1 && msgs[0].Method != "" {
		what = strconv.Quote(msgs[0].Method)
	}
	writeRPCError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest,
		fmt.Sprintf("Bad Request: %s was sent without the Mcp-Session-Id header, and this server keeps sessions: "+
			"send initialize first, then send the Mcp-Session-Id header that its response returns with every request", what))
}

// writeRPCError answers a POST with a JSON-RPC error (id nil: null).
func writeRPCError(w http.ResponseWriter, status int, id any, code int64, msg string) {
	writeRPCErrorData(w, status, id, &jsonrpc.Error{Code: code, Message: msg})
}

// refuseParams answers a request whose params have a value of the wrong
// type (see paramsProblem) with a JSON-RPC error naming the parameter.
func refuseParams(w http.ResponseWriter, r *http.Request, id any, msg string) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = "invalid params"
	}
	writeRPCError(w, http.StatusOK, id, jsonrpc.CodeInvalidParams, msg)
}

// statelessSession reports whether ss is the one-request session of a
// streamable HTTP request in --stateless mode (SSE sessions are never
// stateless).
//
// On a server that keeps sessions, the sessions of the sessionless protocol
// are such one-request sessions too: they alone have no ID there.
func (h *HTTPServer) statelessSession(ss *mcp.ServerSession) bool {
	if h.opts.Stateless {
		return !h.sse.has(ss.ID())
	}
	return ss.ID() == "" && newProtocol(ss)
}

// hasSession reports whether the SDK serves a session with this ID.
func (h *HTTPServer) hasSession(sid string) bool { return h.session(sid) != nil }

// session is the session the SDK serves with this ID, or nil.
func (h *HTTPServer) session(sid string) *mcp.ServerSession {
	for ss := range h.srv.MCP().Sessions() {
		if ss.ID() == sid {
			return ss
		}
	}
	return nil
}

// startsSession reports whether a POST without Mcp-Session-Id starts a
// session: it initializes.
func startsSession(msgs []peekedMessage) bool {
	for i := range msgs {
		if msgs[i].Method == "initialize" {
			return true
		}
	}
	return false
}

// atSessionLimit reports whether MaxSessions sessions are open: the
// sessions of streamable HTTP and SSE, and the subscriptions/listen
// streams, each a session of its own. The one-request sessions of the
// other sessionless requests are not counted: they end with their
// request, which --request-timeout and the calls' caps bound. Two sessions
// that start at the same moment may both pass: the cap is a bound on
// memory, not an exact count.
func (h *HTTPServer) atSessionLimit() bool {
	n := 0
	for ss := range h.srv.MCP().Sessions() {
		if ss.ID() == "" && !h.srv.listening(ss) {
			continue
		}
		if n++; n >= h.opts.MaxSessions {
			return true
		}
	}
	return false
}

// refuseSession answers a request that would open a session past
// MaxSessions: 503, to try again later, with a JSON-RPC error saying why.
func (h *HTTPServer) refuseSession(w http.ResponseWriter, r *http.Request, msgs []peekedMessage) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = "too many sessions"
	}
	h.logger.Warn("a new session was refused: the server has as many as --max-sessions allows", "max_sessions", h.opts.MaxSessions)
	w.Header().Set("Retry-After", "30")
	var id any
	if len(msgs) == 1 && msgs[0].isCall() {
		id = msgs[0].ID
	}
	writeRPCError(w, http.StatusServiceUnavailable, id, jsonrpc.CodeInternalError,
		fmt.Sprintf("the server has %d sessions open, as many as it takes (its operator sets the number with --max-sessions); try again later, and end sessions you no longer use with DELETE", h.opts.MaxSessions))
}

// maxListenBodies is the most bytes the requests of all open
// subscriptions/listen streams may add up to: each stream holds its
// request, in several copies, for as long as it is open.
const maxListenBodies = 4 << 20

// refuseListen answers a subscriptions/listen POST that toolhost does not
// take with status and a JSON-RPC error of code with msg; note is what the
// access log says.
func refuseListen(w http.ResponseWriter, r *http.Request, msgs []peekedMessage, status int, note string, code int64, msg string) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = note
	}
	var id any
	if len(msgs) == 1 && msgs[0].isCall() {
		id = msgs[0].ID
	}
	writeRPCError(w, status, id, code, msg)
}

// newProtocol reports whether ss speaks the sessionless 2026-07-28
// protocol, whose requests carry their own log level.
func newProtocol(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= "2026-07-28"
}
