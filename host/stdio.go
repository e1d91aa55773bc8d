package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"
	"github.com/tidwall/gjson"
	"github.com/toolhost/toolhost/internal/jsondepth"
)

// DefaultMaxMessageSize caps one inbound line: 4 MiB.
const DefaultMaxMessageSize = 4 << 20

// call is where a client request stands in the transport.
type call struct {
	state      callState
	initialize bool              // the request is an initialize request
	learnsMeta bool              // the direct path learns its _meta from it (learnMeta)
	extra      *mcp.RequestExtra // its key in stdioConn.ids, or nil
	// cancel cancels a call on the direct path (stdio_fast.go); nil for
	// one the SDK runs, which cancels its own.
	cancel context.CancelFunc
}

// callState is the stage of a client request.
type callState uint8

const (
	callRunning   callState = iota + 1 // handed to the SDK, not answered yet
	callCancelled                      // cancelled by the client: its reply will be dropped
)

// StdioTransport serves MCP as newline-delimited JSON-RPC over a reader and
// a writer (stdin and stdout). Unlike the SDK's stdio transport it keeps
// serving after a malformed line (answering it with the JSON-RPC error the
// spec prescribes), and when the input ends it answers every request
// already read before it reports the end.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// MaxMessageSize caps a line; 0 means DefaultMaxMessageSize. A longer
	// line is answered with an error and skipped.
	MaxMessageSize int
	// Logger receives transport problems; slog.Default when nil.
	Logger *slog.Logger
	// Stop, when it is closed, ends the session as the end of the input
	// does: every request already handed to the server is answered, then
	// Read reports io.EOF. A request read after it is answered with an
	// error and not run (one read just as Stop closes may still be handed
	// on, and is then answered as usual). For a stop signal: the calls it
	// cancels still send their answers.
	Stop <-chan struct{}
	// Tasks, when set, is the server whose tasks tasks/get, tasks/cancel
	// and tasks/update ask about (ServeStdio sets it).
	Tasks *Server
}

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	max := t.MaxMessageSize
	if max <= 0 {
		max = DefaultMaxMessageSize
	}
	logger := t.Logger
	if logger == nil {
		logger = slog.Default()
	}
	c := &stdioConn{
		out:       t.Out,
		in:        t.In,
		logger:    logger,
		incoming:  make(chan jsonrpc.Message),
		closed:    make(chan struct{}),
		inputDone: make(chan struct{}),
		calls:     map[jsonrpc.ID]call{},
		drained:   make(chan struct{}, 1),
		stop:      t.Stop,
		tasks:     t.Tasks,
		ids:       stdioRequestIDs(t.Tasks),
	}
	if directCalls(t.Tasks) {
		fctx, release := t.Tasks.lifeBound(ctx) // callctx.go
		c.fast = &fastCall{srv: t.Tasks, ctx: fctx, release: release, jobs: make(chan directJob)}
	}
	go c.readLoop(max)
	return c, nil
}

type stdioConn struct {
	in     io.Reader
	out    io.Writer
	logger *slog.Logger

	output stdioOut // stdio_out.go

	incoming  chan jsonrpc.Message
	inputDone chan struct{} // closed when the input has ended
	inputErr  error
	stop      <-chan struct{} // StdioTransport.Stop

	mu sync.Mutex
	// calls holds the client requests whose id is in use: read, and whose
	// reply is not yet written or dropped. A cancelled request keeps its id
	// until the SDK is done with it, so that its reply (dropped) is never
	// taken for the reply to a new request that reuses the id.
	calls map[jsonrpc.ID]call
	// waiting counts the calls not cancelled: at the end of the input, Read
	// waits until their replies are out.
	waiting     int
	drained     chan struct{} // signalled when waiting drops to 0
	initialized bool          // an initialize request was answered with success
	// sawInitialize: an initialize request was read (its answer may be on
	// the way: a client may send its next requests right behind it).
	sawInitialize bool

	closeOnce sync.Once
	closed    chan struct{}

	// tasks answers tasks/* requests (StdioTransport.Tasks); tasksDeclared
	// is whether initialize declared the tasks extension.
	tasks         *Server
	tasksDeclared atomic.Bool
	// ids is where the observer finds the ids of calls (stdio_ids.go);
	// nil when requests are not traced.
	ids *sync.Map

	// fast is set when plain tools/call requests may skip the SDK's
	// decoding and dispatch (stdio_fast.go); session is the SDK's session
	// once initialize has succeeded, and initExtra the key under which
	// receive finds this connection until then (under mu).
	fast      *fastCall
	session   atomic.Pointer[mcp.ServerSession]
	initExtra *mcp.RequestExtra
	// newMeta is the _meta of a 2026-07-28 client's calls that the direct
	// path takes, learnt from a call the SDK took to receive (see
	// learnMeta); metaExtra and metaRaw are the call it learns from, until
	// it is answered. Under mu.
	newMeta []byte
	// metaCtx is the context of the calls the direct path takes with
	// newMeta: the connection's, with the capabilities newMeta declares.
	metaCtx   context.Context
	metaExtra *mcp.RequestExtra
	metaRaw   []byte
}

// utf8BOM is the byte order mark as UTF-8, which a client may write before
// its first message (Windows PowerShell 5 does).
const utf8BOM = "\ufeff"

func (c *stdioConn) readLoop(max int) {
	defer close(c.inputDone)
	r := bufio.NewReaderSize(c.in, 64<<10)
	// A byte order mark before the first message (Windows PowerShell 5
	// writes one with [Text.Encoding]::UTF8) is not part of it.
	if b, err := r.Peek(len(utf8BOM)); err == nil && string(b) == utf8BOM {
		_, _ = r.Discard(len(utf8BOM))
	}
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			if len(line)+len(chunk) > max {
				id := prefixID(line, chunk)
				c.skipLong(r, max, id)
				line = line[:0]
				continue
			}
			line = append(line, chunk...)
			continue
		case err != nil && len(chunk) == 0 && len(line) == 0:
			if err != io.EOF {
				c.inputErr = err
			}
			return
		}
		if len(line)+len(chunk) > max {
			id := prefixID(line, chunk)
			line = line[:0]
			c.logger.Warn("skipped an oversized message", "limit_bytes", max)
			c.replyError(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message larger than %d bytes; it was skipped", max))
		} else {
			line = append(line, chunk...)
			if !c.handleLine(line) {
				return
			}
			line = line[:0]
		}
		if err != nil {
			if err != io.EOF {
				c.inputErr = err
			}
			return
		}
	}
}

// skipLong discards the rest of an oversized line and answers it, under
// id when its start gave one.
func (c *stdioConn) skipLong(r *bufio.Reader, max int, id *jsonrpc.ID) {
	for {
		_, err := r.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			break
		}
	}
	c.logger.Warn("skipped an oversized message", "limit_bytes", max)
	c.replyError(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message larger than %d bytes; it was skipped", max))
}

// prefixID is the id of a request too long to read, from the start of its
// line (line, then chunk), when that start has the method and the id whole
// at the top level of the object, as clients write them (before the
// params), and is well-formed JSON up to them: so the client gets its
// refusal under the request's id instead of waiting for an answer. nil
// otherwise: an oversized response (with no method) must not be refused
// under an id, which would be taken for the answer to the client's own
// request with that id.
func prefixID(line, chunk []byte) *jsonrpc.ID {
	const probe = 64 << 10 // an id is near the start
	head := line
	if len(head) < probe {
		head = append(line[:len(line):len(line)], chunk[:min(len(chunk), probe-len(line))]...)
	}
	head = head[:min(len(head), probe)]
	if t := bytes.TrimSpace(head); len(t) == 0 || t[0] != '{' {
		return nil
	}
	id, method := gjson.GetBytes(head, "id"), gjson.GetBytes(head, "method")
	end := 0
	for _, r := range []gjson.Result{id, method} {
		if !r.Exists() || r.Index <= 0 || r.Index+len(r.Raw) >= len(head) {
			return nil // absent, or perhaps cut short
		}
		end = max(end, r.Index+len(r.Raw))
	}
	// Everything up to the later of the two, closed, is a JSON object:
	// what comes before them is well-formed, and they are at its top level.
	if start := head[:end:end]; !utf8.Valid(start) || !json.Valid(append(start, '}')) {
		return nil
	}
	return idFromRaw(json.RawMessage(id.Raw))
}

// handleLine decodes one line and hands it to Read. It reports false when
// the connection is closed.
func (c *stdioConn) handleLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return true
	}
	if !utf8.Valid(line) {
		c.refuse(line, nil, jsonrpc.CodeParseError, "Parse error: the message is not valid UTF-8")
		return true
	}
	// A plain tools/call is read strictly but for its arguments: it is
	// valid JSON when they are (stdio_plainline.go).
	plain, isPlain := plainRequest(line)
	if isPlain && plain.args != nil && !json.Valid(plain.args) {
		isPlain = false
	}
	if !isPlain && !json.Valid(line) {
		c.refuse(line, nil, jsonrpc.CodeParseError, "Parse error: the message is not valid JSON")
		return true
	}
	if line[0] == '[' {
		c.refuse(line, nil, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported; send one message per line")
		return true
	}
	var msg jsonrpc.Message
	if isPlain {
		msg = plain.req
	} else {
		var err error
		if msg, err = decodeChecked(line); err != nil {
			c.refuse(line, rawID(line), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
			return true
		}
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		if c.tasks != nil && req.IsCall() && isTaskMethod(req.Method) {
			c.answerTask(req)
			return true
		}
		if err := c.admit(req, isPlain); err != nil {
			code, msg := int64(jsonrpc.CodeInvalidRequest), err.Error()
			if rpc := (*jsonrpc.Error)(nil); errors.As(err, &rpc) {
				code, msg = rpc.Code, rpc.Message // params with a wrong type
			}
			c.refuse(line, &req.ID, code, msg)
			return true
		}
		if c.takeDirect(req, plain.req == req, plain.name, plain.args) {
			return true
		}
	}
	select {
	case c.incoming <- msg:
		return true
	case <-c.closed:
		return false
	case <-c.stop:
		// Read takes nothing more: the session is ending.
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			c.forgetID(c.calls[req.ID])
			delete(c.calls, req.ID)
			c.waiting--
			c.signalIfDrained()
			c.mu.Unlock()
			c.replyError(&req.ID, jsonrpc.CodeInternalError, "toolhost is shutting down; the request was not run")
		}
		return true
	}
}

// decodeChecked decodes one message from a client, valid JSON and no
// batch, and checks what the decoder lets through (see checkShape). Its
// error says what is wrong with the message, for an Invalid Request reply.
func decodeChecked(line []byte) (jsonrpc.Message, error) {
	msg, err := decodeMessage(line)
	if err == nil {
		return msg, checkShape(line, msg)
	}
	if idErr := checkID(probeID(line)); idErr != nil {
		return nil, idErr // clearer than the decoder's words about the same id
	}
	return nil, err
}

// wireDecode is the SDK's decode form of a JSON-RPC message
// (internal/jsonrpc2.wireDecode): Method is raw so that a "method" key with
// an empty value is told apart from none.
type wireDecode struct {
	VersionTag string          `json:"jsonrpc"`
	ID         any             `json:"id,omitempty"`
	Method     json.RawMessage `json:"method"`
	Params     json.RawMessage `json:"params,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *jsonrpc.Error  `json:"error,omitempty"`
}

// maxDepth is the SDK's nesting limit for a message.
const maxDepth = 1000

// decodeMessage is jsonrpc.DecodeMessage without its cost: the SDK decodes
// every message through a new segmentio json.Decoder, which allocates a
// large buffer each time, twice per message; that garbage was much of what
// a tools/call allocated, and kept the GC busy. This is the same decoding
// (segmentio's parser, with the same case-sensitive field matching, the
// same nesting limit and the same checks) without the Decoder. A message it
// does not accept goes to the SDK's decoder, so that errors are the SDK's,
// word for word. host/perf_test.go checks the two agree.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	if jsondepth.TooDeep(data, maxDepth) {
		return jsonrpc.DecodeMessage(data)
	}
	var msg wireDecode
	if _, err := sjson.Parse(data, &msg, sjson.DontMatchCaseInsensitiveStructFields); err != nil || msg.VersionTag != "2.0" {
		return jsonrpc.DecodeMessage(data)
	}
	id, err := jsonrpc.MakeID(msg.ID)
	if err != nil {
		return jsonrpc.DecodeMessage(data)
	}
	if len(msg.Method) > 0 {
		var method string
		if _, err := sjson.Parse(msg.Method, &method, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
			return jsonrpc.DecodeMessage(data)
		}
		return &jsonrpc.Request{Method: method, ID: id, Params: msg.Params}, nil
	}
	if !id.IsValid() {
		return jsonrpc.DecodeMessage(data)
	}
	resp := &jsonrpc.Response{ID: id, Result: msg.Result}
	if msg.Error != nil {
		resp.Error = msg.Error
	}
	return resp, nil
}

// errAlreadyInitializedAny answers a second initialize request that the SDK
// refused, on any transport: how to start a new session depends on it.
var errAlreadyInitializedAny = errors.New("Invalid Request: session already initialized: initialize is sent once per session; " +
	"go on with the session, or start a new one (over HTTP, send initialize without the Mcp-Session-Id header, " +
	"or open a new /sse stream; over stdio, start a new server process)")

// errAlreadyInitialized answers a second initialize request on stdio.
var errAlreadyInitialized = errors.New("Invalid Request: session already initialized: initialize is sent once per session; " +
	"go on with the session, or start a new server process for a new one")

// admit records a request before it goes to the SDK. It refuses a call
// whose id is still in use (by a request running, or cancelled but not yet
// finished) and an initialize request on an initialized session; the error
// is the reply's message. plain says plainRequest read req: its params are
// then an object of a string name and arguments other than null, which
// have nothing paramsProblem refuses or withoutNullArguments drops, so
// they are not scanned again.
func (c *stdioConn) admit(req *jsonrpc.Request, plain bool) error {
	if !req.IsCall() {
		if req.Method == "notifications/cancelled" {
			c.noteCancelled(req.Params)
		}
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, inUse := c.calls[req.ID]; inUse {
		return fmt.Errorf("Invalid Request: request id %s is still in use by an earlier request that has not finished "+
			"(a cancelled request keeps its id until it ends); send the request with a new id", formatID(req.ID))
	}
	if req.Method == "initialize" && c.initialized {
		return errAlreadyInitialized
	}
	// Before initialize, the SDK's refusal says what to do first; a
	// client of the 2026-07-28 protocol sends none.
	if req.Method == "initialize" {
		c.sawInitialize = true
		c.newMeta, c.metaCtx = nil, nil // a client of an earlier protocol after all
		c.noteInitialize(req.Params)
		c.noteInitExtra(req)
	}
	if (c.sawInitialize || sessionlessParams(req.Params)) && !plain {
		if p, changed := withoutNullArguments(req.Method, req.Params); changed {
			req.Params = p
		}
		if msg := paramsProblem(req.Method, req.Params); msg != "" {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
		}
	}
	c.calls[req.ID] = call{state: callRunning, initialize: req.Method == "initialize", extra: c.noteID(req)}
	c.waiting++
	return nil
}

// sessionlessParams reports whether params are those of a request of the
// 2026-07-28 protocol, which a client sends without an initialize: their
// _meta names that version.
func sessionlessParams(params json.RawMessage) bool {
	if !bytes.Contains(params, []byte(mcp.MetaKeyProtocolVersion)) {
		return false
	}
	var p struct {
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	_, err := sjson.Parse(params, &p, sjson.DontMatchCaseInsensitiveStructFields)
	return err == nil && p.Meta.Version >= sessionlessVersion
}

// formatID writes an id as it appears in JSON.
func formatID(id jsonrpc.ID) string {
	if s, ok := id.Raw().(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(id.Raw())
}

// noteCancelled stops waiting for a cancelled request: the spec says the
// server should not answer it. Its id stays in use until the SDK is done
// with it (see startReply).
func (c *stdioConn) noteCancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	c.mu.Lock()
	if cl := c.calls[id]; cl.state == callRunning {
		cl.state = callCancelled
		c.calls[id] = cl
		c.waiting--
		c.signalIfDrained()
		if cl.cancel != nil {
			cl.cancel()
		}
	}
	c.mu.Unlock()
}

// startReply is called before a response is written. It reports whether
// the response must be dropped (its request was cancelled) and whether it
// answers a tracked request, to be ended by endReplies. Either way the id is
// free from now on: a client that has the reply may send a request with
// the same id at once, and it must not be refused because the server had
// not yet noted that the reply was out.
func (c *stdioConn) startReply(resp *jsonrpc.Response) (drop, tracked bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.calls[resp.ID]
	if !ok {
		return false, false
	}
	c.forgetID(cl)
	delete(c.calls, resp.ID)
	if cl.initialize {
		c.forgetInitExtra()
	}
	if cl.learnsMeta {
		c.forgetMetaExtra()
	}
	if cl.state == callCancelled {
		return true, false
	}
	if cl.initialize && resp.Error == nil {
		c.initialized = true
	}
	return false, true
}

// endReplies notes that the replies of n tracked requests were written (or
// could not be). Only now does the requests stop counting as awaited, so
// that Read cannot report the end of input before the replies are out.
func (c *stdioConn) endReplies(n int) {
	if n == 0 {
		return
	}
	c.mu.Lock()
	c.waiting -= n
	c.signalIfDrained()
	c.mu.Unlock()
}

// signalIfDrained wakes Read when no reply is awaited any more. c.mu is held.
func (c *stdioConn) signalIfDrained() {
	if c.waiting == 0 {
		select {
		case c.drained <- struct{}{}:
		default:
		}
	}
}

// checkShape checks what DecodeMessage lets through: the version must be
// "2.0", a message without a method must be a response with a result or an
// error, and an id must be one the reply can carry unchanged (see checkID).
func checkShape(line []byte, msg jsonrpc.Message) error {
	var probe struct {
		Version *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	// segmentio's Unmarshal reads keys as encoding/json does (matching
	// case-insensitively, the last of duplicates winning), at a fraction
	// of the cost: this runs for every message.
	if err := sjson.Unmarshal(line, &probe); err != nil {
		return errors.New("the message is not a JSON object")
	}
	if probe.Version == nil || *probe.Version != "2.0" {
		return errors.New(`"jsonrpc" must be "2.0"`)
	}
	if _, isResp := msg.(*jsonrpc.Response); isResp && probe.Result == nil && probe.Error == nil {
		return errors.New(`a message needs a "method" (request or notification) or a "result" or "error" (response)`)
	}
	if _, isReq := msg.(*jsonrpc.Request); isReq && isNull(probe.ID) {
		return errors.New(`"id" must be a string or an integer, not null; leave "id" out to send a notification`)
	}
	return checkID(probe.ID)
}

// maxSafeID bounds integer ids: the SDK reads ids as float64, which holds
// every integer up to 2^53 exactly (and so do JavaScript clients).
const maxSafeID = 1<<53 - 1

// checkID checks a raw id (nil when absent): MCP ids are strings or
// integers. A fractional number (1.5), an exponent (1e3) or an integer
// beyond ±maxSafeID would reach the SDK truncated or rounded, and its reply
// would carry another id, so they are refused. null is left to the caller.
func checkID(raw json.RawMessage) error {
	if len(raw) == 0 || raw[0] == '"' || isNull(raw) {
		return nil
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return errors.New(`"id" must be a string or an integer`)
	}
	if bytes.ContainsAny(raw, ".eE") {
		return fmt.Errorf(`"id" must be a string or an integer, not %s; send an integer (1) or a string ("1.5")`, raw)
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err != nil || n > maxSafeID || n < -maxSafeID {
		return fmt.Errorf(`"id" %s is out of range: an integer id must be within ±%d; use a smaller number or a string`, raw, maxSafeID)
	}
	return nil
}

// isNull reports whether a raw JSON value is null.
func isNull(raw json.RawMessage) bool {
	return string(raw) == "null"
}

// probeID returns the raw "id" of a JSON message, nil when it has none.
func probeID(line []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	// Keys match case-sensitively, as the SDK's decoder reads them: an
	// "Id" key is not the id.
	if _, err := sjson.Parse(line, &probe, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return nil
	}
	return probe.ID
}

// rawID digs the id out of a message that is JSON but not a valid request,
// so that the error reply can carry it: nil (id null in the reply) when it
// has none or one that checkID refuses.
func rawID(line []byte) *jsonrpc.ID {
	return idFromRaw(probeID(line))
}

// idFromRaw is the request id raw encodes, or nil when it is absent, null
// or one that checkID refuses.
func idFromRaw(raw json.RawMessage) *jsonrpc.ID {
	if len(raw) == 0 || isNull(raw) || checkID(raw) != nil {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return nil
	}
	return &id
}

// replyError writes a JSON-RPC error response directly (id null when nil).
func (c *stdioConn) replyError(id *jsonrpc.ID, code int64, msg string) {
	var idJSON any
	if id != nil {
		idJSON = id.Raw()
	}
	c.writeLine(map[string]any{
		"jsonrpc": "2.0",
		"id":      idJSON,
		"error":   map[string]any{"code": code, "message": msg},
	})
}

// Read returns the next message. When the input has ended it waits until
// every request already read is answered, then reports io.EOF.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case <-c.inputDone:
	case <-c.stop:
	}
	for {
		c.mu.Lock()
		n := c.waiting
		c.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-c.drained:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
	}
	select {
	case <-c.inputDone:
		if c.inputErr != nil {
			return nil, c.inputErr
		}
	default: // stopped
	}
	return nil, io.EOF
}

// Write writes one message as a line. A response to a request the client
// cancelled is dropped, which frees its id.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	return c.write(msg, true)
}

// write writes msg; with wait it returns once msg is written, with the
// write's error, and without it may return before (an answer of the
// direct call path, stdio_out.go).
func (c *stdioConn) write(msg jsonrpc.Message, wait bool) error {
	resp, isResp := msg.(*jsonrpc.Response)
	if isResp && resp.Error != nil {
		resp.Error = standardError(resp.Error)
	}
	replies := 0
	if isResp {
		drop, tracked := c.startReply(resp)
		if drop {
			return nil
		}
		if tracked {
			replies = 1
		}
	}
	// A plain answer is appended to the output as it is encoded; any
	// other message is encoded first.
	var n int
	var add func([]byte) []byte
	if id, result, ok := plainAnswer(msg); ok {
		n, add = len(result)+answerExtra, func(b []byte) []byte { return appendAnswer(b, id, result) }
	} else {
		data, err := encodeLine(msg)
		if err != nil {
			c.endReplies(replies)
			return fmt.Errorf("encoding message: %w", err)
		}
		n, add = len(data), func(b []byte) []byte { return append(b, data...) }
	}
	select {
	case <-c.closed:
		c.endReplies(replies)
		return errors.New("connection closed")
	default:
		return c.queueFunc(n, add, replies, wait)
	}
}

// Close closes the connection. The input is closed when it can be.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.mu.Lock()
		for _, cl := range c.calls {
			c.forgetID(cl)
			if cl.cancel != nil {
				cl.cancel()
			}
		}
		c.forgetInitExtra()
		c.forgetMetaExtra()
		c.mu.Unlock()
		if c.fast != nil {
			c.fast.release()
		}
		if cl, ok := c.in.(io.Closer); ok {
			_ = cl.Close()
		}
	})
	return nil
}

// SessionID is empty: stdio has one session.
func (c *stdioConn) SessionID() string { return "" }

var _ mcp.Transport = (*StdioTransport)(nil)

// standardError gives an error the SDK sends without a JSON-RPC code (it
// would go out as code 0) a standard one: -32600 for a request before
// initialize and for a second initialize (admit refuses most of those; one
// read before the first was answered gets here), -32603 for anything else.
// Errors with a code are kept.
func standardError(err error) error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return err
	}
	if strings.Contains(err.Error(), "invalid during session initialization") {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: err.Error() + ": send initialize (and notifications/initialized) first"}
	}
	if strings.Contains(err.Error(), `duplicate "initialize"`) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: errAlreadyInitializedAny.Error()}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}
