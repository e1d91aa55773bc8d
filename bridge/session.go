package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/host"
)

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

// answer runs one call and sends its result on the call's task id and
// sequence number.
func (s *session) answer(ctx context.Context, f Frame, id json.RawMessage, data map[string]json.RawMessage) {
	start := time.Now()
	mask := s.logCall(ctx, id, data)
	method, out := s.run(ctx, data)
	s.logOutcome(mask, id, method, out)
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
