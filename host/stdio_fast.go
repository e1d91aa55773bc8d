package host

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"
)

// The direct call path. The SDK decodes a tools/call's params twice
// (once for its _meta, once into the typed request), each time through a
// new decoder that allocates and zeroes a 32 KiB buffer, then hands the
// request to a goroutine of its own through its in-flight bookkeeping:
// about half of the server's CPU for a cheap call. A plain tools/call on
// stdio (params of a name and arguments only) is the same request every
// time, and the SDK does nothing with it that toolhost's middleware needs:
// the stdio connection decodes it once and runs it through receive (and
// so through the SDK's handling beneath it, the tool's handler included),
// on a goroutine of its own, and writes the answer itself. A client of
// 2026-07-28, which sends no initialize and the protocol's _meta in every
// call, takes the same path once the SDK has taken one of its calls with
// that very _meta to receive (learnMeta). Anything else (another _meta, a
// task, input responses, a request before initialize was answered, a
// server with an observer, whose middleware sits above receive, or one
// served over HTTP too) goes through the SDK as before.

// stdioInits maps the RequestExtra of an initialize request read on a
// stdio connection to that connection, so that receive can tell it the
// session the SDK made for it (noteStdioSession). An entry lives until
// the initialize request is answered.
var stdioInits sync.Map // *mcp.RequestExtra → *stdioConn

// directTaken counts the calls that took the direct path, for tests.
var directTaken atomic.Int64

// fastCall is what the direct path needs of a stdio connection's server.
type fastCall struct {
	srv *Server
	// ctx is the connection's, ended by Shutdown too (lifeBound): a call's
	// context derives from it, and callContext makes none of its own.
	ctx     context.Context
	release context.CancelFunc // ends ctx, when the connection closes
	// jobs hands calls to the goroutines waiting for one, idle of them
	// (stdio_workers.go).
	jobs chan directJob
	idle atomic.Int32
}

// directCalls reports whether calls on a stdio connection of srv may take
// the direct path: the receiving middleware above receive (the observer's,
// the HTTP front end's) would be skipped by it.
func directCalls(srv *Server) bool {
	return srv != nil && srv.observe == nil && !srv.remote.Load()
}

// noteInitExtra gives an initialize request a RequestExtra of its own under
// which receive finds the connection. c.mu is held.
func (c *stdioConn) noteInitExtra(req *jsonrpc.Request) {
	if c.fast == nil || req.Extra != nil {
		return
	}
	ex := &mcp.RequestExtra{}
	req.Extra = ex
	c.initExtra = ex
	stdioInits.Store(ex, c)
}

// forgetInitExtra drops the connection's initialize entry once its
// initialize request is answered. c.mu is held.
func (c *stdioConn) forgetInitExtra() {
	if c.initExtra != nil {
		stdioInits.Delete(c.initExtra)
		c.initExtra = nil
	}
}

// noteStdioSession tells the stdio connection an initialize request came
// from which session the SDK made for it, once initialize has succeeded.
func noteStdioSession(req mcp.Request) {
	if c, ss := stdioConnOf(&stdioInits, req); c != nil {
		c.session.Store(ss)
	}
}

// stdioConnOf returns the stdio connection that marks holds under req's
// RequestExtra, and req's session; nil when there is none of either.
func stdioConnOf(marks *sync.Map, req mcp.Request) (*stdioConn, *mcp.ServerSession) {
	ex := req.GetExtra()
	if ex == nil {
		return nil, nil
	}
	v, ok := marks.Load(ex)
	if !ok {
		return nil, nil
	}
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return nil, nil
	}
	return v.(*stdioConn), ss
}

// plainCallParams are the params of a tools/call, as the SDK reads them
// (CallToolParamsRaw), each kept raw to tell an absent one.
type plainCallParams struct {
	Meta           json.RawMessage `json:"_meta"`
	Name           json.RawMessage `json:"name"`
	Arguments      json.RawMessage `json:"arguments"`
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage `json:"requestState"`
}

// plainCall reads the name and arguments of a tools/call whose params have
// nothing else the SDK reads (no _meta, so no progress token and no
// per-request protocol version; no input responses or request state); ok
// is false for any other, and for params the SDK would refuse.
func plainCall(params json.RawMessage) (name string, args json.RawMessage, ok bool) {
	name, args, meta, ok := metaCall(params)
	return name, args, ok && meta == nil
}

// metaCall is plainCall for params that may have a _meta too, which it
// returns as it is written (nil when there is none).
func metaCall(params json.RawMessage) (name string, args, meta json.RawMessage, ok bool) {
	if len(params) == 0 || params[0] != '{' {
		return "", nil, nil, false
	}
	var p plainCallParams
	// The SDK's parser, with its case-sensitive matching of keys.
	if _, err := sjson.Parse(params, &p, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return "", nil, nil, false
	}
	if p.InputResponses != nil || p.RequestState != nil || len(p.Name) < 2 || p.Name[0] != '"' {
		return "", nil, nil, false
	}
	if bytes.IndexByte(p.Name, '\\') >= 0 {
		if _, err := sjson.Parse(p.Name, &name, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
			return "", nil, nil, false
		}
	} else {
		name = string(p.Name[1 : len(p.Name)-1])
	}
	if name == "" {
		return "", nil, nil, false
	}
	return name, p.Arguments, p.Meta, true
}

// stdioMetas maps the RequestExtra of the call from which a stdio
// connection learns its 2026-07-28 client's _meta (learnMeta) to that
// connection, until the call is answered.
var stdioMetas sync.Map // *mcp.RequestExtra → *stdioConn

// directMetaKeys are the keys a _meta the direct path takes may have: the
// protocol's version and the client's capabilities and identity. The SDK
// does more with others (a log level for the call, a progress token).
var directMetaKeys = []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo}

// learnMeta reports whether the direct path takes req, a tools/call with
// the _meta meta, which is so when meta is, byte for byte, the _meta of an
// earlier call of this connection that reached receive. The SDK had then
// checked it (the version one it serves, the capabilities and the
// client's identity well formed) and set the session's state from the
// first call of the 2026-07-28 client, which it does not change for later
// ones. Until a call has taught it, a call with a _meta of only
// directMetaKeys, with the protocol's version, is marked for
// noteStdioMeta, and goes to the SDK. A connection that saw an initialize
// learns nothing: its client speaks an earlier protocol.
func (c *stdioConn) learnMeta(req *jsonrpc.Request, meta json.RawMessage) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.sawInitialize:
		return false
	case c.newMeta != nil:
		return bytes.Equal(meta, c.newMeta)
	case c.metaExtra != nil || req.Extra != nil || !directMeta(meta):
		return false
	}
	cl, ok := c.calls[req.ID]
	if !ok {
		return false
	}
	ex := &mcp.RequestExtra{}
	req.Extra = ex
	c.metaExtra, c.metaRaw = ex, bytes.Clone(meta)
	stdioMetas.Store(ex, c)
	cl.learnsMeta = true
	c.calls[req.ID] = cl
	return false
}

// directMeta reports whether meta is a _meta the direct path may learn:
// an object of directMetaKeys only, with a version of the protocol.
func directMeta(meta json.RawMessage) bool {
	var m map[string]json.RawMessage
	if _, err := sjson.Parse(meta, &m, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return false
	}
	for k := range m {
		if !slices.Contains(directMetaKeys, k) {
			return false
		}
	}
	var v string
	_, err := sjson.Parse(m[mcp.MetaKeyProtocolVersion], &v, sjson.DontMatchCaseInsensitiveStructFields)
	return err == nil && v == sessionlessVersion
}

// noteStdioMeta tells the stdio connection that the call it learns its
// client's _meta from (learnMeta) reached receive, in which session.
func noteStdioMeta(req mcp.Request) {
	c, ss := stdioConnOf(&stdioMetas, req)
	call, ok := req.(*mcp.CallToolRequest)
	if c == nil || !ok {
		return // (a connection learns only with c.fast set: takeDirect)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.metaExtra == req.GetExtra() && !c.sawInitialize {
		c.newMeta = c.metaRaw
		// What the SDK reads from this very _meta, read once.
		c.metaCtx = context.WithValue(c.fast.ctx, capsKey{}, call.ClientCapabilities())
		c.session.Store(ss)
	}
}

// forgetMetaExtra drops the connection's learning entry (see learnMeta).
// c.mu is held.
func (c *stdioConn) forgetMetaExtra() {
	if c.metaExtra != nil {
		stdioMetas.Delete(c.metaExtra)
		c.metaExtra, c.metaRaw = nil, nil
	}
}

// takeDirect runs req, a tools/call admitted, on the direct path when it
// can: initialize has been answered, the session is known, and its params
// are plain. With read, plainRequest has read req's params as name and
// args already. It reports whether it took it; if not, the request goes
// to the SDK.
func (c *stdioConn) takeDirect(req *jsonrpc.Request, read bool, name string, args json.RawMessage) bool {
	if c.fast == nil || req.Method != "tools/call" || !req.IsCall() {
		return false
	}
	var meta json.RawMessage
	if !read {
		var ok bool
		if name, args, meta, ok = metaCall(req.Params); !ok {
			return false
		}
	}
	var decoded mcp.Meta
	if meta != nil {
		if !c.learnMeta(req, meta) {
			return false
		}
		// Its own copy, as the SDK decodes one for each call.
		if _, err := sjson.Parse(meta, &decoded, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
			return false
		}
	}
	ss := c.session.Load()
	if ss == nil {
		return false
	}
	select {
	case <-c.stop:
		return false // refused as the session ends, as any request is
	default:
	}
	c.mu.Lock()
	base := c.fast.ctx
	if meta != nil {
		// learnMeta found meta learnt; only an initialize, read on this
		// goroutine after this line, can make the connection forget it.
		base = c.metaCtx
	}
	ctx, cancel := context.WithCancel(base)
	cl, tracked := c.calls[req.ID]
	if !(c.initialized || meta != nil) || !tracked {
		c.mu.Unlock()
		cancel()
		return false
	}
	cl.cancel = cancel
	c.calls[req.ID] = cl
	c.mu.Unlock()
	extra, _ := req.Extra.(*mcp.RequestExtra)
	dc := &directRequest{params: mcp.CallToolParamsRaw{Meta: decoded, Name: name, Arguments: args}}
	dc.req = mcp.CallToolRequest{Session: ss, Params: &dc.params, Extra: extra}
	call := &dc.req
	directTaken.Add(1)
	c.startDirect(directJob{ctx, cancel, req.ID, call}) // stdio_workers.go
	return true
}

// directRequest is the request of a call on the direct path and its params,
// made in one allocation.
type directRequest struct {
	req    mcp.CallToolRequest
	params mcp.CallToolParamsRaw
}

// runDirect runs one call through receive and writes its answer, as the
// SDK's connection would: a result and an error together keep the error;
// neither is an internal error.
func (c *stdioConn) runDirect(ctx context.Context, cancel context.CancelFunc, id jsonrpc.ID, call *mcp.CallToolRequest) {
	defer cancel()
	res, err := c.fast.srv.received(ctx, "tools/call", call)
	if err == nil && call.Params.Meta != nil {
		c.fast.srv.annotateStarted(res) // a 2026-07-28 call's answer
	}
	// The call's context ends before its answer is written, as the one
	// callContext made for it ended when the tool's handler returned.
	cancel()
	var raw json.RawMessage
	switch {
	case err != nil:
	case res == nil:
		err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the tool call returned no result"}
	default:
		var merr error
		if raw, merr = marshalResult(res); merr != nil {
			err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "encoding the result: " + merr.Error()}
		}
	}
	if werr := c.write(&jsonrpc.Response{ID: id, Result: raw, Error: err}, false); werr != nil {
		c.logger.Debug("writing the answer to a tool call failed", slog.String("error", werr.Error()))
	}
}
