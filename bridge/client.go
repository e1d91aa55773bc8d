package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/host"
)

// Defaults of a Client.
const (
	DefaultTaskID        = "mcp00001"
	DefaultMaxConcurrent = 64
	DefaultMinBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff    = 30 * time.Second
	DefaultWriteTimeout  = 30 * time.Second
	DefaultShutdownGrace = 5 * time.Second
	// DefaultMaxHeld is Client.MaxHeld's default: the bytes of call
	// frames read and not yet answered.
	DefaultMaxHeld = 64 << 20
	// DefaultStallWarning is Client.StallWarning's default.
	DefaultStallWarning = 2 * time.Second
	// registerSeq is the sequence number of register frames, as in the
	// document's example.
	registerSeq = "0000"
	// stableAfter is how long a connection must last for the next
	// reconnection to start again from the shortest delay.
	stableAfter = 10 * time.Second
	dialTimeout = 10 * time.Second
	// cancelledResultGrace is how long calls cancelled at shutdown may
	// take to end and send their results before the connection closes.
	cancelledResultGrace = 2 * time.Second
)

// ErrNotConnected is returned by Register when there is no live connection;
// the next connection registers the services anyway.
var ErrNotConnected = errors.New("not connected")

// errConnectionLost is why calls stop when the connection to the server
// drops: their results could not be sent.
var errConnectionLost = errors.New("the connection to the framed-protocol server was lost")

// Client connects to a framed-protocol server as the client role, registers
// the tools of a host.Server as services and answers the server's calls by
// running them, with the same validation, limits and timeouts as MCP calls.
// It reconnects, with exponential backoff and jitter, until its context
// ends.
type Client struct {
	// Addr is the server's HOST:PORT.
	Addr string
	// Server holds the registry in service.
	Server *host.Server
	// Logger receives the client's logs; slog.Default() when nil.
	Logger *slog.Logger
	// TaskID is the task id of the register frames (DefaultTaskID when
	// empty). Results go out on the task id and sequence number of the call
	// they answer.
	TaskID string
	// MaxFrame caps frames both ways, in bytes (DefaultMaxFrame when 0):
	// larger inbound frames are skipped, and a result that would be larger
	// is replaced by an error result.
	MaxFrame int
	// MaxConcurrent is the number of calls run at once
	// (DefaultMaxConcurrent when 0); more calls wait, up to four times as
	// many, while reading goes on (a dropped connection is noticed); past
	// that, reading waits too.
	MaxConcurrent int
	// MaxHeld caps the bytes of the call frames read and not yet
	// answered, running or waiting for a slot (DefaultMaxHeld when 0, and
	// at least MaxFrame): a call frame that would pass it is answered at
	// once with an error that says the bridge is busy, and not run. The
	// count of calls alone let 320 frames of MaxFrame bytes wait, each
	// decoding to many times its size.
	MaxHeld int
	// MinBackoff and MaxBackoff bound the delay between connection
	// attempts (DefaultMinBackoff and DefaultMaxBackoff when 0).
	MinBackoff, MaxBackoff time.Duration
	// WriteTimeout bounds the writing of one frame (DefaultWriteTimeout
	// when 0); a server that does not read is disconnected.
	WriteTimeout time.Duration
	// ShutdownGrace is how long calls running when the context ends may
	// take to finish and send their results (DefaultShutdownGrace when 0).
	ShutdownGrace time.Duration
	// Hurry, when closed during that grace (a second Ctrl-C), ends it at
	// once: the calls still running are cancelled and send their results.
	Hurry <-chan struct{}
	// KillCommands, when set, kills at once what the calls' backends still
	// run (adapters.KillCommands). A call cancelled at shutdown answers
	// without waiting for its command, which goes on within its
	// kill_timeout (up to a minute) until the bridge kills it as it exits;
	// one cancelled otherwise (the connection was lost) waits for it: once
	// ctx has ended, the calls still running cancelledResultGrace after
	// they were cancelled are ended with it, so that Run returns within
	// its bounds.
	KillCommands func()
	// StallWarning is how long a partial frame that already contains
	// "##END" waits for more input before a warning is logged
	// (DefaultStallWarning when 0).
	StallWarning time.Duration

	mu  sync.Mutex
	cur *session
}

// Run connects, serves and reconnects until ctx ends, then stops reading,
// lets running calls finish for ShutdownGrace, and closes the connection.
// It returns nil after ctx ends; an error only for a Client it cannot run.
func (c *Client) Run(ctx context.Context) error {
	if c.Server == nil {
		return errors.New("bridge: Client.Server is nil")
	}
	if c.Addr == "" {
		return errors.New("bridge: no server address")
	}
	if err := CheckTaskID(c.taskID()); err != nil {
		return err
	}
	log := c.logger()
	attempt := 0
	for {
		start := time.Now()
		connected, err := c.connectAndServe(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if connected && time.Since(start) >= stableAfter {
			attempt = 0
		}
		delay := c.backoff(attempt)
		attempt++
		if connected {
			log.Warn("connection lost; reconnecting", "addr", c.Addr, "error", err, "in", delay.Round(time.Millisecond))
		} else {
			log.Warn("cannot connect; retrying", "addr", c.Addr, "error", err, "in", delay.Round(time.Millisecond))
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// Register sends the services of the registry in service on the live
// connection, as after a reload. It returns ErrNotConnected when there is
// none.
func (c *Client) Register(ctx context.Context) error {
	c.mu.Lock()
	s := c.cur
	c.mu.Unlock()
	if s == nil {
		return ErrNotConnected
	}
	return s.register(ctx)
}

// backoff is the delay before attempt number n (from 0): exponential from
// MinBackoff up to MaxBackoff, with half of it random ("equal jitter") so
// that many clients dropped at once do not come back at once.
func (c *Client) backoff(n int) time.Duration {
	lo, hi := c.MinBackoff, c.MaxBackoff
	if lo <= 0 {
		lo = DefaultMinBackoff
	}
	if hi <= 0 {
		hi = DefaultMaxBackoff
	}
	d := lo
	for i := 0; i < n && d < hi; i++ {
		d *= 2
	}
	d = min(d, hi)
	half := d / 2
	return half + rand.N(d-half+1)
}

func (c *Client) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

func (c *Client) taskID() string {
	if c.TaskID == "" {
		return DefaultTaskID
	}
	return c.TaskID
}

func (c *Client) maxFrame() int {
	if c.MaxFrame <= 0 {
		return DefaultMaxFrame
	}
	return max(c.MaxFrame, MinMaxFrame)
}

func (c *Client) maxHeld() int64 {
	if c.MaxHeld <= 0 {
		return max(DefaultMaxHeld, int64(c.maxFrame()))
	}
	return max(int64(c.MaxHeld), int64(c.maxFrame()))
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// connectAndServe makes one connection and serves it until it drops or ctx
// ends. connected reports whether the connection was made.
func (c *Client) connectAndServe(ctx context.Context) (connected bool, err error) {
	dialer := net.Dialer{Timeout: dialTimeout, KeepAlive: 15 * time.Second}
	conn, err := dialer.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return false, err
	}
	s := &session{c: c, conn: conn, log: c.logger().With("addr", c.Addr)}
	c.mu.Lock()
	c.cur = s
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.cur == s {
			c.cur = nil
		}
		c.mu.Unlock()
	}()
	s.log.Info("connected to the framed-protocol server", "local", conn.LocalAddr().String())
	return true, s.serve(ctx)
}

// session is one connection.
type session struct {
	c    *Client
	conn net.Conn
	log  *slog.Logger

	wmu   sync.Mutex // one frame at a time
	calls sync.WaitGroup
	// unsent counts the results not sent because the connection was
	// gone: logged once, when the session ends.
	unsent atomic.Int64
	// held is the bytes of the call frames read and not yet answered
	// (Client.MaxHeld).
	held atomic.Int64
}

// serve registers the services, then reads frames and runs calls until the
// connection drops or ctx ends.
func (s *session) serve(ctx context.Context) error {
	// Calls outlive ctx by ShutdownGrace; cancelCalls ends them, with the reason.
	callCtx, cancelCalls := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelCalls(errConnectionLost)
	// When ctx ends, stop reading (the connection stays open for the
	// results of running calls).
	stop := context.AfterFunc(ctx, func() { _ = s.conn.SetReadDeadline(time.Now()) })
	defer stop()

	if err := s.register(ctx); err != nil {
		s.conn.Close()
		return err
	}
	maxConc := s.c.MaxConcurrent
	if maxConc <= 0 {
		maxConc = DefaultMaxConcurrent
	}
	sem := make(chan struct{}, maxConc)
	// Calls read but waiting for a slot: reading goes on while they wait,
	// so that a dropped connection is noticed even when every slot is
	// busy; only this many more stop reading until slots free up.
	waiting := make(chan struct{}, maxConc*waitingPerSlot)
	dec := NewDecoder(s.conn, s.c.maxFrame())
	dec.StallAfter = orDefault(s.c.StallWarning, DefaultStallWarning)
	dec.OnStall = func(pending int) {
		s.log.Warn("a frame from the server has not ended although it contains ##END: its JSON payload probably has an unclosed string or bracket; it is held until the payload ends, or skipped when it passes the frame size cap",
			"bytes", pending, "max_frame", s.c.maxFrame())
	}
	var readErr error
	for {
		f, err := dec.Next()
		var se *SkipError
		if errors.As(err, &se) {
			attrs := []any{"offset", se.Offset, "reason", se.Reason}
			if se.Len > 0 {
				attrs = append(attrs, "bytes", se.Len)
			}
			s.log.Warn("skipped input from the server", attrs...)
			s.refuseSkipped(ctx, se)
			continue
		}
		if err != nil {
			readErr = err
			break
		}
		if !s.handle(ctx, callCtx, f, sem, waiting) {
			break
		}
	}
	if ctx.Err() != nil {
		readErr = nil
		grace := orDefault(s.c.ShutdownGrace, DefaultShutdownGrace)
		if finished, hurried := s.waitCalls(grace, s.c.Hurry); !finished {
			if hurried {
				s.log.Warn("second signal: the calls still running are cancelled")
				cancelCalls(adapters.HostExiting(errors.New("the bridge is stopping, and a second signal stopped the calls still running")))
			} else {
				s.log.Warn("calls still running at shutdown are cancelled", "grace", grace)
				cancelCalls(adapters.HostExiting(fmt.Errorf("the bridge is stopping, and the call did not finish within the %s it gives running calls", grace)))
			}
			// A call cancelled as the bridge exits ends at once, without
			// waiting for its command (adapters.ErrHostExiting): let it
			// send the result that says why before the connection
			// closes, so that the server is not left waiting for it.
			if finished, _ := s.waitCalls(cancelledResultGrace, nil); !finished {
				s.log.Warn("calls cancelled at shutdown did not end; their results are not sent", "waited", cancelledResultGrace)
				s.c.killCommands()
			}
		}
	}
	cancelCalls(errConnectionLost)
	s.conn.Close()
	s.endCalls(ctx)
	if n := s.unsent.Load(); n > 0 {
		s.log.Warn("calls ended with the connection, their results not sent", "calls", n)
	}
	return readErr
}

// endCalls waits for the calls, cancelled, to end. A command may take its
// kill_timeout to clean up; once ctx has ended (the bridge is stopping,
// perhaps while it waits here after a lost connection), the calls get
// cancelledResultGrace more at most, or until Hurry, and what is left is
// killed.
func (s *session) endCalls(ctx context.Context) {
	done := make(chan struct{})
	go func() { s.calls.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	t := time.NewTimer(cancelledResultGrace)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	case <-s.c.Hurry:
	}
	s.c.killCommands()
	<-done
}

// killCommands kills what the calls' backends still run, when the client
// has the means to.
func (c *Client) killCommands() {
	if c.KillCommands != nil {
		c.KillCommands()
	}
}

// waitCalls waits up to grace for the running calls to end, or until hurry
// is closed (nil: never), and reports whether they ended, and whether
// hurry cut the wait short.
func (s *session) waitCalls(grace time.Duration, hurry <-chan struct{}) (finished, hurried bool) {
	done := make(chan struct{})
	go func() { s.calls.Wait(); close(done) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return true, false
	case <-t.C:
		return false, false
	case <-hurry:
		return false, true
	}
}

// message is the envelope of every MCP frame's JSON.
type message struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// waitingPerSlot is how many calls per slot (MaxConcurrent) may wait for
// one, read from the connection, before reading waits too.
const waitingPerSlot = 4

// handle dispatches one frame; calls run on callCtx, at most cap(sem) at
// once; up to cap(waiting) more wait for a slot without holding up the
// reading. It reports false when ctx ended while reading waited.
func (s *session) handle(ctx, callCtx context.Context, f Frame, sem, waiting chan struct{}) bool {
	switch f.Type {
	case TypeMCP:
	case TypeText, TypeEnd:
		s.log.Debug("ignoring a text frame", "type", fmt.Sprintf("0x%02x", f.Type), "task", f.TaskID, "seq", f.Seq)
		return true
	default:
		s.log.Debug("ignoring a frame of unknown type", "type", fmt.Sprintf("0x%02x", f.Type), "task", f.TaskID)
		return true
	}
	var m message
	if err := json.Unmarshal(f.Payload, &m); err != nil {
		if id, method, ok := undecodedCall(f.Payload, err); ok {
			s.log.Warn("refusing a call whose payload does not decode", "task", f.TaskID, "seq", f.Seq, "call_id", idText(id), "error", err)
			s.reply(ctx, f, id, method, outcome{Error: undecodedReason(f.Payload, err)}, time.Now())
			return true
		}
		s.log.Warn("ignoring an MCP frame whose payload is not a JSON object such as {\"type\":\"call\",\"data\":{...}}",
			"task", f.TaskID, "seq", f.Seq, "payload", payloadPreview(f.Payload), "error", err)
		return true
	}
	if m.Type != "call" {
		s.log.Debug("ignoring an MCP message", "type", m.Type, "task", f.TaskID)
		return true
	}
	var data map[string]json.RawMessage
	if err := json.Unmarshal(m.Data, &data); err != nil || data == nil {
		s.log.Warn("ignoring a call whose data is not an object", "task", f.TaskID, "seq", f.Seq)
		return true
	}
	id := bytes.TrimSpace(data["call_id"])
	if len(id) == 0 || string(id) == "null" {
		s.log.Warn("ignoring a call without call_id: it cannot be answered", "task", f.TaskID, "seq", f.Seq)
		return true
	}
	size := int64(len(f.Payload))
	if held := s.held.Add(size); held > s.c.maxHeld() {
		s.held.Add(-size)
		var method string
		_ = json.Unmarshal(data["method"], &method)
		s.log.Warn("refusing a call: the calls read and not yet answered hold as many bytes as the bridge allows",
			"task", f.TaskID, "seq", f.Seq, "call_id", idText(id), "bytes", size, "held", held-size, "max_held", s.c.maxHeld())
		s.reply(ctx, f, id, method, outcome{Error: fmt.Sprintf("the bridge is busy, so the call was not run: the calls it has read and not yet answered hold %d bytes, and this call's %d would pass its limit of %d bytes held at once; send it again once some of them are answered, or send smaller arguments",
			held-size, size, s.c.maxHeld())}, time.Now())
		return true
	}
	select {
	case waiting <- struct{}{}:
	case <-ctx.Done():
		s.held.Add(-size)
		return false
	}
	s.calls.Add(1)
	go func() {
		defer s.calls.Done()
		defer s.held.Add(-size)
		slot := false
		select {
		case sem <- struct{}{}:
			slot = true
		case <-ctx.Done():
		case <-callCtx.Done():
			<-waiting // the connection is gone: nobody to answer
			return
		}
		<-waiting
		if ctx.Err() != nil {
			// Stopping: a call that has not started does not start, and
			// says so.
			if slot {
				<-sem
			}
			s.reply(callCtx, f, id, "", outcome{Error: "the bridge is stopping; the call did not start"}, time.Now())
			return
		}
		defer func() { <-sem }()
		s.answer(callCtx, f, id, data)
	}()
	return true
}

// outcome is the "result" object of a result message.
type outcome struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// answer runs one call and sends its result on the call's task id and
// sequence number.
func (s *session) answer(ctx context.Context, f Frame, id json.RawMessage, data map[string]json.RawMessage) {
	start := time.Now()
	method, out := s.run(ctx, data)
	s.reply(ctx, f, id, method, out, start)
}

// reply sends the result of a call of method, started at start.
func (s *session) reply(ctx context.Context, f Frame, id json.RawMessage, method string, out outcome, start time.Time) {
	payload, err := resultMessage(id, out)
	if err == nil && frameSize(f.TaskID, f.Seq, payload) > s.c.maxFrame() {
		out = outcome{Error: fmt.Sprintf("the result of %s is %d bytes, larger than the frame limit of %d bytes; ask for less", shortMethod(method), len(payload), s.c.maxFrame())}
		payload, err = resultMessage(id, out)
	}
	if err != nil {
		s.log.Error("cannot encode a result", "call_id", idText(id), "error", err)
		return
	}
	s.log.Debug("call", "call_id", idText(id), "method", method, "success", out.Success, "duration", time.Since(start))
	if errors.Is(context.Cause(ctx), errConnectionLost) {
		// Cancelled with the connection: there is no one to send it to.
		s.unsent.Add(1)
		return
	}
	if err := s.write(ctx, Frame{Type: TypeMCP, TaskID: f.TaskID, Seq: f.Seq, Payload: payload}); err != nil {
		if errors.Is(err, net.ErrClosed) {
			// The connection was closed by a failed write or its loss;
			// that was logged.
			s.unsent.Add(1)
			return
		}
		s.log.Warn("cannot send a result", "call_id", idText(id), "method", method, "error", err)
	}
}

// refuseSkipped answers a call whose frame was skipped for its size or for
// a fault in its JSON, so that the server is not left waiting for its
// result: when the bytes read of the frame (up to the cap, or the fault)
// hold its call_id, the result says why the call was not run. Other
// skipped input has no one to answer.
func (s *session) refuseSkipped(ctx context.Context, se *SkipError) {
	if se.Head == nil || se.Head.Type != TypeMCP {
		return
	}
	id, method, ok := headCall(se.Head.Payload)
	if !ok {
		// A whole payload with a raw control byte in a string, which
		// headCall stops at, read by its structure.
		if id, method, ok = lenientCall(se.Head.Payload); !ok {
			return
		}
	}
	out := outcome{Error: fmt.Sprintf("the call's frame was skipped, so it was not run: %s; send it as one JSON object, {\"type\":\"call\",\"data\":{\"call_id\":...,\"method\":...,\"params\":{...}}}, with control characters in strings escaped", se.Reason)}
	switch {
	case se.TooLarge:
		out.Error = fmt.Sprintf("the call's frame is larger than the bridge's frame limit of %d bytes, so it was not run; send smaller arguments, or start the bridge with a larger --max-frame", s.c.maxFrame())
	case ctx.Err() != nil:
		// Reading stopped inside the frame as the bridge stops.
		out.Error = "the bridge is stopping, and the call's frame had not ended (its JSON payload probably has an unclosed string or bracket, which swallows ##END), so it was not run"
	}
	s.reply(ctx, *se.Head, id, method, out, time.Now())
}

// undecodedCall finds the call_id and method of a call whose payload
// json.Unmarshal refused with err: by the payload's structure
// (lenientCall), or, when err is a syntax error, in the bytes before it,
// as headCall finds them in the first bytes of a payload.
func undecodedCall(payload []byte, err error) (id json.RawMessage, method string, ok bool) {
	if id, method, ok = lenientCall(payload); ok {
		return id, method, true
	}
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 && se.Offset <= int64(len(payload)) {
		return headCall(payload[:se.Offset-1])
	}
	return nil, "", false
}

// lenientCall finds the call_id and method of a call message by its
// structure alone: the top-level "type", which must be "call", and "data"
// (keys in any case, as handle matches them), and in the data its
// "call_id", which must be JSON other than null, and "method"; the last of
// duplicate keys wins. Other values are skipped by their strings and
// brackets, however deeply they nest and whatever they hold (an escape or
// a literal that does not decode), so that a call whose params cannot be
// decoded can still be answered. It is meant for a payload that does not
// decode: one that does is handle's to read.
func lenientCall(payload []byte) (id json.RawMessage, method string, ok bool) {
	var typ string
	var data []byte
	top := members(payload, func(key string, v []byte) bool {
		switch {
		case strings.EqualFold(key, "type"):
			typ = ""
			return json.Unmarshal(v, &typ) == nil
		case strings.EqualFold(key, "data"):
			data = v
		}
		return true
	})
	if !top || typ != "call" || data == nil {
		return nil, "", false
	}
	ok = members(data, func(key string, v []byte) bool {
		switch key {
		case "call_id":
			id = v
		case "method":
			method = ""
			if json.Unmarshal(v, &method) != nil {
				method = ""
			}
		}
		return true
	})
	if !ok || id == nil || string(id) == "null" || !json.Valid(id) {
		return nil, "", false
	}
	return id, method, true
}

// members calls fn with each key and value of the JSON object b, in
// order, each value as its bytes; false when b is not an object by its
// structure (see skipValue), or fn returns false.
func members(b []byte, fn func(key string, v []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		end := skipValue(b, i)
		var key string
		if end < 0 || b[i] != '"' || json.Unmarshal(b[i:end], &key) != nil {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		end = skipValue(b, i)
		if end < 0 || !fn(key, b[i:end]) {
			return false
		}
		i = skipSpace(b, end)
		switch {
		case i >= len(b):
			return false
		case b[i] == ',':
			i = skipSpace(b, i+1)
		case b[i] == '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// headCallDepth is how deep headCall reads a payload's arrays and
// objects: deeper than any call_id, well within what encoding/json's
// Token reads.
const headCallDepth = 1000

// shallow returns b with each array or object nested deeper than max
// replaced by 0, strings left as they are; b itself when none is. One
// cut off by the end of b ends the result where it starts.
func shallow(b []byte, max int) []byte {
	var out []byte
	last, depth := 0, 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			if i = skipString(b, i); i < 0 {
				i = len(b)
			}
		case isOpen(c) && depth == max:
			out = append(out, b[last:i]...)
			end := skipValue(b, i)
			if end < 0 {
				return out
			}
			out = append(out, '0')
			last, i = end, end-1
		case isOpen(c):
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// skipValue returns the end of the JSON value that starts at b[i], or -1:
// a string ends at its closing quote, an object or array at the bracket
// that closes it (strings inside skipped), a literal at the first byte
// that cannot be part of one. What a string or literal holds is not
// checked.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	if !isOpen(b[i]) && b[i] != '"' {
		j := i
		for j < len(b) && literalByte(b[j]) {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
	depth := 0
	for j := i; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			j = skipString(b, j)
			if j < 0 {
				return -1
			}
		case isOpen(c):
			depth++
		case c == '}' || c == ']':
			depth--
		}
		if depth == 0 {
			return j + 1
		}
	}
	return -1
}

// skipString returns the index of the quote that closes the string whose
// opening quote is b[i], or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

func isOpen(c byte) bool { return c == '{' || c == '[' }

// skipSpace returns the index of the first byte from b[i] on that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// undecodedReason is the error result of a call whose payload
// json.Unmarshal refused with err: what is wrong, and what to send.
func undecodedReason(payload []byte, err error) string {
	if adapters.JSONTooDeep(payload) {
		return fmt.Sprintf("the call's JSON nests arrays and objects more than %d levels deep, more than the bridge decodes, so it was not run; send params that nest less deeply", adapters.MaxJSONDepth)
	}
	return fmt.Sprintf("the call's JSON does not decode (%v), so it was not run; send it as one JSON object, {\"type\":\"call\",\"data\":{\"call_id\":...,\"method\":...,\"params\":{...}}}", err)
}

// headCall finds the call_id (exactly as it came) and the method of a call
// message from the first bytes of its payload,
// {"type":"call","data":{"call_id":...,"method":...,"params":...}}, and
// decides as the full message's handling would (session.handle): the
// top-level keys match in any case and the data's exactly, the last of
// duplicate keys wins, and JSON that is not well-formed is no message.
// It reports false unless the bytes show for sure a call with a call_id
// other than null: a value cut off by the end of the bytes (a number
// among them) is unknown, and so is the message's type when its "type"
// is; when the bytes end before any "type", a data with a method (a
// call's mark; results and acks have none) is taken for a call. A
// duplicate key past the kept bytes cannot be seen.
func headCall(head []byte) (id json.RawMessage, method string, ok bool) {
	// From Go 1.27 on, encoding/json's Token refuses to nest deeper than
	// Unmarshal does: what lies deeper is read as one value, 0, here.
	head = shallow(head, headCallDepth)
	dec := json.NewDecoder(bytes.NewReader(head))
	// cut reports whether err is the end of the bytes rather than bad JSON:
	// io.EOF or io.ErrUnexpectedEOF up to Go 1.26, a SyntaxError "unexpected
	// end of JSON input" at the end of the bytes from Go 1.27 on.
	cut := func(err error) bool {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return true
		}
		var se *json.SyntaxError
		return errors.As(err, &se) && se.Offset >= int64(len(head)) && strings.Contains(se.Error(), "unexpected end")
	}
	// value reads the next value whole; done is false when the bytes end
	// in it (a number at the very end may go on), bad when it is not JSON.
	// It reads token by token, with no limit on nesting: params nested
	// deeper than encoding/json decodes do not hide a call_id after them.
	value := func() (v json.RawMessage, done, bad bool) {
		start := dec.InputOffset()
		for depth := 0; ; {
			t, err := dec.Token()
			if err != nil {
				return nil, false, !cut(err)
			}
			switch t {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
			if depth == 0 {
				break
			}
		}
		// What the value's tokens took: the ':' or ',' before it too.
		v = bytes.TrimLeft(head[start:dec.InputOffset()], " \t\r\n:,")
		// Only a number can go on past the end of the bytes.
		number := v[0] == '-' || (v[0] >= '0' && v[0] <= '9')
		return v, !number || dec.InputOffset() < int64(len(head)), false
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, "", false
	}
	// typeSeen: a whole "type" was read; closed: the object ended within
	// the bytes. Either rules out a "type" past them.
	typ, typeKnown, typeSeen, closed, hasMethod := "", true, false, false, false
outer:
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			if cut(err) {
				break
			}
			return nil, "", false
		}
		k, _ := key.(string)
		switch {
		case strings.EqualFold(k, "type"):
			v, done, bad := value()
			if bad {
				return nil, "", false
			}
			if !done {
				typeKnown = false
				break outer
			}
			if json.Unmarshal(v, &typ) != nil {
				return nil, "", false // the full message would not decode
			}
			typeSeen = true
		case strings.EqualFold(k, "data"):
			id, method, hasMethod = nil, "", false // the last data wins
			t, err := dec.Token()
			if err != nil {
				if cut(err) {
					break outer
				}
				return nil, "", false
			}
			if t != json.Delim('{') {
				return nil, "", false // not an object: no call
			}
			for dec.More() {
				dk, err := dec.Token()
				if err != nil {
					if cut(err) && len(bytes.TrimSpace(head[dec.InputOffset():])) == 0 {
						// The bytes end after a whole member (Go 1.27's
						// More says there is more at their end).
						break outer
					}
					// A key cut short may be a later call_id, which would
					// replace the one read.
					return nil, "", false
				}
				v, done, bad := value()
				if bad || (!done && dk == "call_id") {
					return nil, "", false
				}
				if !done {
					if dk == "method" {
						method, hasMethod = "", false
					}
					break outer
				}
				switch dk {
				case "call_id":
					id = v
				case "method":
					method = ""
					hasMethod = v[0] == '"' && json.Unmarshal(v, &method) == nil
				}
			}
			if _, err := dec.Token(); err != nil { // the data's '}'
				if cut(err) {
					break outer
				}
				return nil, "", false
			}
		default:
			_, done, bad := value()
			if bad {
				return nil, "", false
			}
			if !done {
				break outer
			}
		}
	}
	if !dec.More() {
		// The object may have ended within the bytes: then nothing but
		// space may follow it.
		if t, err := dec.Token(); err == nil && t == json.Delim('}') {
			if _, err := dec.Token(); !errors.Is(err, io.EOF) {
				return nil, "", false
			}
			closed = true
		} else if err != nil && !cut(err) {
			return nil, "", false
		}
	}
	if id == nil || string(id) == "null" || !typeKnown || (typ != "" && typ != "call") ||
		(typ == "" && (!hasMethod || typeSeen || closed)) {
		return nil, "", false
	}
	return id, method, true
}

// idText is a call id for logs: the string itself, or the JSON of another
// value.
func idText(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s
	}
	return string(id)
}

// run runs the tool a call names and turns its result into an outcome: the
// text for a text result, the JSON object for a structured one, and the
// error text with success false for a failed call.
func (s *session) run(ctx context.Context, data map[string]json.RawMessage) (method string, out outcome) {
	if err := json.Unmarshal(data["method"], &method); err != nil || method == "" {
		return method, outcome{Error: "the call has no method: give the service's name as a string in data.method"}
	}
	params := bytes.TrimSpace(data["params"])
	if len(params) == 0 || string(params) == "null" {
		params = []byte("{}")
	}
	if params[0] != '{' {
		return method, outcome{Error: "params must be a JSON object of the service's parameters"}
	}
	res, err := s.c.Server.CallTool(ctx, method, params)
	if errors.Is(err, host.ErrUnknownTool) {
		var names []string
		for _, t := range s.c.Server.Registry().Tools {
			names = append(names, t.Name)
		}
		return method, outcome{Error: fmt.Sprintf("unknown service %q; the services are: %s", shortMethod(method), strings.Join(names, ", "))}
	}
	if err != nil {
		return method, outcome{Error: err.Error()}
	}
	if res.IsError {
		return method, outcome{Error: text(res)}
	}
	if sc, ok := res.StructuredContent.(json.RawMessage); ok && len(sc) > 0 {
		return method, outcome{Success: true, Data: hideMarkers(sc)}
	}
	b, err := marshal(text(res))
	if err != nil {
		return method, outcome{Error: err.Error()}
	}
	return method, outcome{Success: true, Data: b}
}

// text joins the items of a result, one a line: text as it is, the text of
// an embedded text resource, and for what the protocol cannot carry
// (images, audio, binary resources, links) a line that says what it was,
// so that the server's model is not told "here is the report:" and then
// given nothing.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.EmbeddedResource:
			switch {
			case c.Resource == nil:
			case c.Resource.Text != "" || len(c.Resource.Blob) == 0:
				parts = append(parts, c.Resource.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource %s, %s, %d bytes, not sent: the framed protocol carries text]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob)))
			}
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s]", c.URI))
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image, %s, %d bytes, not sent: the framed protocol carries text]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio, %s, %d bytes, not sent: the framed protocol carries text]", c.MIMEType, len(c.Data)))
		}
	}
	return strings.Join(parts, "\n")
}

// resultMessage renders {"type":"result","data":{"call_id":...,"result":...}}.
// The call id is sent back exactly as it came.
func resultMessage(id json.RawMessage, out outcome) ([]byte, error) {
	return marshal(message{Type: "result", Data: mustJSON(struct {
		CallID json.RawMessage `json:"call_id"`
		Result outcome         `json:"result"`
	}{id, out})})
}

func mustJSON(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

// registerMessage renders the register message for the tools of reg, in
// the config's order: each tool's description (its title, or its name, when
// it has none) and its inputSchema as parameters.
func registerMessage(reg *host.Registry) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"register","data":{"services":{`)
	for i, t := range reg.Tools {
		if i > 0 {
			b.WriteByte(',')
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		if desc == "" {
			desc = t.Name
		}
		name, err := marshal(t.Name)
		if err != nil {
			return nil, err
		}
		d, err := marshal(desc)
		if err != nil {
			return nil, err
		}
		schema, ok := t.InputSchema.(json.RawMessage)
		if !ok {
			if schema, err = marshal(t.InputSchema); err != nil {
				return nil, err
			}
		}
		b.Write(name)
		b.WriteString(`:{"description":`)
		b.Write(d)
		b.WriteString(`,"parameters":`)
		b.Write(schema)
		b.WriteByte('}')
	}
	b.WriteString(`}}}`)
	var compact bytes.Buffer
	if err := json.Compact(&compact, b.Bytes()); err != nil {
		return nil, err
	}
	return hideMarkers(compact.Bytes()), nil
}

// marshal encodes v as compact JSON without HTML escaping, and with '#'
// escaped wherever "##" would appear (see hideMarkers).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return hideMarkers(bytes.TrimRight(b.Bytes(), "\n")), nil
}

// hideMarkers rewrites every '#' of a JSON text as \u0023 when the text
// contains "##", so that no "##END" or "##START" appears inside a payload
// and a server that looks for the first "##END" still finds the right one.
// In valid JSON '#' occurs only inside strings, where \u0023 means the same.
func hideMarkers(b []byte) []byte {
	if !bytes.Contains(b, []byte("##")) {
		return b
	}
	return bytes.ReplaceAll(b, []byte("#"), []byte(`\u0023`))
}

// register sends the register message for the registry in service. The
// message is built under the write lock, so that of two registrations the
// one written last describes the newer registry.
func (s *session) register(ctx context.Context) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	reg := s.c.Server.Registry()
	payload, err := registerMessage(reg)
	if err != nil {
		return fmt.Errorf("encoding the register message: %w", err)
	}
	if n, max := frameSize(s.c.taskID(), registerSeq, payload), s.c.maxFrame(); n > max {
		// Sent all the same: the server's own limit may be larger.
		s.log.Warn("the register frame is larger than --max-frame: a server with the same limit will skip it, and see no services",
			"bytes", n, "max_frame", max, "services", len(reg.Tools),
			"fix", "raise --max-frame here and on the server, or serve fewer tools or shorter descriptions")
	}
	if err := s.writeLocked(ctx, Frame{Type: TypeMCP, TaskID: s.c.taskID(), Seq: registerSeq, Payload: payload}); err != nil {
		return fmt.Errorf("registering: %w", err)
	}
	s.log.Info("registered services", "services", len(reg.Tools), "task", s.c.taskID())
	return nil
}

// frameSize is the size on the wire of an MCP frame: the markers, the type
// byte, the task id, the bracketed sequence number and the payload.
func frameSize(taskID, seq string, payload []byte) int {
	return len(startMarker) + 1 + len(taskID) + len(seq) + 2 + len(payload) + len(endMarker)
}

func (s *session) write(ctx context.Context, f Frame) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeLocked(ctx, f)
}

// writeLocked writes one frame within WriteTimeout (or until ctx's
// deadline, if sooner). A failed write closes the connection, which ends
// the session and starts a reconnection.
func (s *session) writeLocked(ctx context.Context, f Frame) error {
	b, err := EncodeFrame(f)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(orDefault(s.c.WriteTimeout, DefaultWriteTimeout))
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = s.conn.SetWriteDeadline(deadline)
	if _, err := s.conn.Write(b); err != nil {
		s.conn.Close()
		return err
	}
	return nil
}

// shortMethod is a call's method, which the server chose, cut for a
// message: at most maxQuotedMethod bytes of valid UTF-8, and "..." when
// cut, as toolhost quotes a client's URIs and names.
func shortMethod(m string) string {
	if len(m) <= maxQuotedMethod {
		return strings.ToValidUTF8(m, "\uFFFD")
	}
	return strings.ToValidUTF8(m[:maxQuotedMethod], "\uFFFD") + "..."
}

// maxQuotedMethod is the most bytes of a method a message quotes.
const maxQuotedMethod = 200

// payloadPreview is the start of a payload, for a log line.
func payloadPreview(p []byte) string {
	const max = 80
	if len(p) <= max {
		return string(p)
	}
	return string(bytes.ToValidUTF8(p[:max], nil)) + "..."
}
