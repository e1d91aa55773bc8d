package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"

	"github.com/toolhost/toolhost/internal/jsondepth"
)

// oneShot serves, in --stateless mode, the POSTs that carry one request of
// a method it knows (oneShotMethods), the bulk of a stateless server's
// traffic: on a protocol before 2026-07-28, and on 2026-07-28 when the
// request's headers and _meta are as the SDK requires (newProtocolReady).
// It hands every other request to next, the SDK's stateless handler.
//
// The SDK's handler decodes such a POST through nine new JSON decoders,
// each with a 32 KiB buffer of its own (to find out what the POST opens,
// then to read it, then to look for a _meta in it twice), before it decodes
// the params: about 300 KB of garbage a request, which kept the GC busy for
// half of the CPU under load. oneShot decodes the body once, without such
// buffers (decodeMessage, as stdio does), and gives the request to a
// session of its own on the same server, as the SDK does, over a
// connection that answers on this POST's stream (oneShotConn): the SDK
// then decodes only the params. Every middleware runs as for any other
// request. What the SDK writes is written the same way: the same headers,
// each message an SSE event "message", and on 2026-07-28 the errors of the
// protocol as a plain JSON answer with their HTTP status (newProtocolStatus).
// A 2026-07-28 request costs the SDK's handler more again (thirteen such
// decoders: BENCHMARKS.md, "Issue 38: where each target stands", round
// nine).
func (h *HTTPServer) oneShot(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, version, ok := h.oneShotRequest(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		h.serveOneShot(w, r, req, version)
	})
}

// oneShotMethods are the methods oneShot serves: those whose params the
// SDK does not need to see before they reach the server (each is a call,
// and none starts or ends anything beyond its own answer).
var oneShotMethods = []string{"tools/call", "tools/list", "ping", "resources/list", "resources/templates/list", "prompts/list"}

// oneShotVersions are the protocol versions before 2026-07-28 that
// oneShot serves: the SDK's, which answers each request without a
// session, and whose requests carry no _meta the SDK must check.
var oneShotVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// sessionlessVersion is the protocol version from which requests carry
// their version and the client's capabilities in their _meta, and their
// method and name in headers too (SEP-2575, SEP-2243). oneShot serves
// this one version, which has no ping.
const sessionlessVersion = "2026-07-28"

// oneShotRequest decodes a POST that oneShot serves: its request, and the
// protocol version its session is to have (as the SDK gives a stateless
// request, 2025-03-26 when the header names none). ok is false for any
// other POST, which the SDK answers as it always does, its refusals
// included.
func (h *HTTPServer) oneShotRequest(r *http.Request) (_ *jsonrpc.Request, version string, ok bool) {
	body, _ := r.Body.(*readBody)
	if r.Method != http.MethodPost || body == nil || len(r.Header.Values("Last-Event-ID")) > 0 {
		return nil, "", false
	}
	version = r.Header.Get("Mcp-Protocol-Version")
	sessionless := version == sessionlessVersion && slices.Contains(supportedVersions, version)
	switch {
	case version == "":
		version = "2025-03-26"
	case !sessionless && !slices.Contains(oneShotVersions, version):
		return nil, "", false
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" || !acceptsBoth(r.Header.Values("Accept")) {
		return nil, "", false
	}
	if !sessionless && newProtocolPOST(r, body.data) {
		return nil, "", false
	}
	msg, err := decodeMessage(body.data)
	if err != nil {
		return nil, "", false
	}
	req, isReq := msg.(*jsonrpc.Request)
	if !isReq || !req.IsCall() || !slices.Contains(oneShotMethods, req.Method) || (req.Method == "tools/call" && len(req.Params) == 0) {
		return nil, "", false
	}
	if sessionless && !h.newProtocolReady(r, req) {
		return nil, "", false
	}
	return req, version, true
}

// newProtocolReady reports whether req, the one request of POST r, of
// protocol 2026-07-28, is one the SDK's handler would give its server as
// it is: the method is not ping (which that protocol removed), the header
// Mcp-Method names the method, a tools/call's Mcp-Name its tool, and the
// io.modelcontextprotocol/protocolVersion of its _meta is the version
// of its Mcp-Protocol-Version header. The params are read as the SDK reads
// them, by the same decoder with the same options. A call of a tool that
// mirrors arguments into Mcp-Param-* headers is left to the SDK too, which
// checks them against the declaration it holds (paramHeadersProblem has
// checked them first). Anything else goes to the SDK, which says what is
// wrong in its own words; the session then checks the rest of the _meta
// (the client's capabilities) as it does for the SDK's handler.
func (h *HTTPServer) newProtocolReady(r *http.Request, req *jsonrpc.Request) bool {
	if req.Method == "ping" || !oneHeader(r, "Mcp-Method", req.Method) || jsondepth.TooDeep(req.Params, maxDepth) {
		return false
	}
	var meta mcp.Meta
	if req.Method == "tools/call" {
		// The SDK decodes a mcp.CallToolParams, whose arguments (any) take
		// every JSON value, as the raw form's do.
		var p mcp.CallToolParamsRaw
		if _, err := sjson.Parse(req.Params, &p, sjson.DontMatchCaseInsensitiveStructFields); err != nil || p.Name == "" || !oneHeader(r, "Mcp-Name", p.Name) {
			return false
		}
		if reg := h.srv.Registry(); reg != nil {
			if t := reg.tools[p.Name]; t != nil && len(t.Headers) > 0 {
				return false
			}
		}
		meta = p.Meta
	} else {
		var p struct {
			Meta mcp.Meta `json:"_meta"`
		}
		if _, err := sjson.Parse(req.Params, &p, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
			return false
		}
		meta = p.Meta
	}
	v, _ := meta[mcp.MetaKeyProtocolVersion].(string)
	return v != "" && v == r.Header.Get("Mcp-Protocol-Version")
}

// oneHeader reports whether r has the header name once, with the value
// want.
func oneHeader(r *http.Request, name, want string) bool {
	vals := r.Header.Values(name)
	return len(vals) == 1 && vals[0] == want
}

// acceptsBoth reports whether Accept values take both application/json
// and text/event-stream, as the SDK requires of a POST.
func acceptsBoth(values []string) bool {
	jsonOK, streamOK := streamAccepts(values) // http_direct_stream.go
	return jsonOK && streamOK
}

// serveOneShot serves req, of a POST oneShot took, on a session of its own
// that has the state the SDK gives a stateless request: initialized, with
// the protocol version of the POST's header.
func (h *HTTPServer) serveOneShot(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, version string) {
	req.Extra = &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}
	c := &oneShotConn{req: req, w: w, answered: make(chan struct{}), closed: make(chan struct{}), sessionless: version == sessionlessVersion}
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Connection", "keep-alive")
	// The level is the default one, which callMiddleware sets on the
	// SDK's stateless sessions (whose level is info) with a request of its
	// own.
	state := &mcp.ServerSessionState{
		InitializeParams:  &mcp.InitializeParams{ProtocolVersion: version},
		InitializedParams: &mcp.InitializedParams{},
		LogLevel:          DefaultLogLevel,
	}
	if c.sessionless {
		// As the SDK's handler gives one: nothing, for the session takes
		// its version and the client's capabilities from the request's
		// _meta.
		state = &mcp.ServerSessionState{}
	}
	// The handler's context, and so that of the notifications it sends,
	// derives from this one: the mark tells Write and callMiddleware that
	// they are this request's.
	ctx := context.WithValue(r.Context(), oneShotKey{}, c)
	ss, err := h.srv.MCP().Connect(ctx, c, &mcp.ServerSessionOptions{State: state})
	if err != nil {
		h.logger.Error("could not start the session of a stateless request", "error", err)
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return
	}
	defer ss.Close()
	select {
	case <-c.answered:
	case <-r.Context().Done():
	}
	c.mu.Lock()
	c.done = true // nothing is written once the handler returns
	c.mu.Unlock()
}

// oneShotConn is the connection of a session that serves one request of a
// POST (see oneShot): Read gives the request, then waits for the end;
// Write writes the answer, and the notifications the request's handler
// sends before it, as SSE events of the POST's response. It is its own
// transport: a session connects to it once.
type oneShotConn struct {
	req      *jsonrpc.Request
	w        http.ResponseWriter
	answered chan struct{} // closed once the answer is written

	readOnce  sync.Once
	closeOnce sync.Once
	closed    chan struct{}

	// sessionless is set for a request of protocol 2026-07-28 (see
	// newProtocolStatus).
	sessionless bool

	mu      sync.Mutex // guards w and what follows
	done    bool       // the answer is written, or the POST has ended
	started bool       // an event is written
}

// Connect implements mcp.Transport.
func (c *oneShotConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

// Read gives the request once, then waits until the connection closes.
func (c *oneShotConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	var msg jsonrpc.Message
	c.readOnce.Do(func() { msg = c.req })
	if msg != nil {
		return msg, nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes the answer to the request, or a notification that its
// handler sends while it runs (its context has the connection's mark), as
// an SSE event. Anything else is not delivered,
// as the SDK delivers nothing else to a stateless request: notifications
// to every session, and requests to the client, which a stateless server
// cannot make.
func (c *oneShotConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, isResp := msg.(*jsonrpc.Response)
	switch {
	case isResp && resp.ID == c.req.ID:
	case !isResp && !msg.(*jsonrpc.Request).IsCall() && ctx.Value(oneShotKey{}) == c:
	case !isResp && msg.(*jsonrpc.Request).IsCall():
		return fmt.Errorf("%w: stateless servers cannot make requests", errRejected())
	default:
		return fmt.Errorf("%w: the message is not part of the request's answer", errRejected())
	}
	data, err := encodeLine(msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return fmt.Errorf("%w: the request's stream has ended", errRejected())
	}
	if status := c.newProtocolStatus(resp); status != 0 {
		// As the SDK's handler writes such an error: the answer alone, as
		// plain JSON, with the status.
		c.w.Header().Set("Content-Type", "application/json")
		c.w.WriteHeader(status)
		_, err = c.w.Write(data[:len(data)-1])
		c.done = true
		close(c.answered)
		if err != nil {
			return fmt.Errorf("%w: %w", errRejected(), err)
		}
		return nil
	}
	c.started = true
	ev := make([]byte, 0, len(data)+len("event: message\ndata: \n\n"))
	ev = append(ev, "event: message\ndata: "...)
	ev = append(ev, data[:len(data)-1]...) // without encodeLine's newline
	ev = append(ev, "\n\n"...)
	_, err = c.w.Write(ev)
	_ = http.NewResponseController(c.w).Flush()
	if isResp {
		c.done = true
		close(c.answered)
	}
	if err != nil {
		// The client went away: not a broken connection, only an
		// undelivered message.
		return fmt.Errorf("%w: %w", errRejected(), err)
	}
	return nil
}

// newProtocolStatus is the HTTP status with which the answer resp (nil
// for a notification) is written on its own as plain JSON, or 0 for an SSE
// event: on protocol 2026-07-28, an error that says the request was not
// one the server takes (SEP-2575: method not found 404; invalid params,
// unsupported protocol version and missing client capabilities 400), when
// no event has been written. c.mu is held.
func (c *oneShotConn) newProtocolStatus(resp *jsonrpc.Response) int {
	if !c.sessionless || c.started || resp == nil || resp.Error == nil {
		return 0
	}
	var e *jsonrpc.Error
	if !errors.As(resp.Error, &e) {
		return 0
	}
	switch e.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return 0
}

// Close ends the connection: Read reports its end.
func (c *oneShotConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: the session is the request's alone.
func (c *oneShotConn) SessionID() string { return "" }

// oneShotKey is the context key under which the contexts of a one-shot
// session's handlers hold its connection.
type oneShotKey struct{}

// errRejected is the SDK's error for a message a connection did not
// deliver, which does not break the connection (any other error from
// Write ends the session and cancels its calls). The SDK does not export
// it: it is taken once from what the SDK's own stateless connection
// returns for a request to the client.
var errRejected = sync.OnceValue(func() error {
	t := &mcp.StreamableServerTransport{Stateless: true}
	conn, err := t.Connect(context.Background())
	if err == nil {
		defer conn.Close()
		id, _ := jsonrpc.MakeID(int64(1))
		err = conn.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "ping"})
		if inner := errors.Unwrap(err); inner != nil {
			return inner
		}
	}
	return errors.New("message not delivered")
})
