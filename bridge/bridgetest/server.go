// Package bridgetest is a framed-protocol server for tests, in the role of
// the server of the seed document: it accepts clients on loopback TCP,
// records and decodes what they send, and sends what a test gives it.
package bridgetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/bridge"
)

// Timeout is how long the waiting methods wait before they fail the test.
var Timeout = 20 * time.Second

// Server accepts framed-protocol clients on 127.0.0.1.
type Server struct {
	// Addr is the HOST:PORT clients connect to.
	Addr string

	tb    testing.TB
	ln    net.Listener
	conns chan *Conn
	done  chan struct{}
	wg    sync.WaitGroup
}

// NewServer starts a server on a free port; it is closed when the test
// ends.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	return NewServerAt(tb, "127.0.0.1:0")
}

// NewServerAt starts a server listening on addr, as a server that comes
// back at its old address after a restart.
func NewServerAt(tb testing.TB, addr string) *Server {
	tb.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatalf("bridgetest: listen: %v", err)
	}
	s := &Server{Addr: ln.Addr().String(), tb: tb, ln: ln, conns: make(chan *Conn, 16), done: make(chan struct{})}
	s.wg.Add(1)
	go s.accept()
	tb.Cleanup(s.Close)
	return s
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		c := newConn(s.tb, nc)
		select {
		case s.conns <- c:
		case <-s.done:
			nc.Close()
			return
		}
	}
}

// Accept returns the next client that connected, waiting up to Timeout.
func (s *Server) Accept() *Conn {
	s.tb.Helper()
	t := time.NewTimer(Timeout)
	defer t.Stop()
	select {
	case c := <-s.conns:
		return c
	case <-t.C:
		s.tb.Fatalf("bridgetest: no client connected within %s", Timeout)
		return nil
	}
}

// Close stops accepting and closes the connections not yet accepted.
func (s *Server) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.ln.Close()
	s.wg.Wait()
	for {
		select {
		case c := <-s.conns:
			c.Close()
		default:
			return
		}
	}
}

// Conn is one client connection. Its methods fail the test it is bound to:
// the test that accepted it, or the one given to For.
type Conn struct {
	tb testing.TB
	*shared
}

// shared is the state of a connection, common to its Conns.
type shared struct {
	nc     net.Conn
	frames chan bridge.Frame
	closed chan struct{}

	mu    sync.Mutex
	raw   bytes.Buffer
	skips []string
}

// For returns c bound to tb, for use in a subtest.
func (c *Conn) For(tb testing.TB) *Conn { return &Conn{tb: tb, shared: c.shared} }

func newConn(tb testing.TB, nc net.Conn) *Conn {
	c := &Conn{tb: tb, shared: &shared{nc: nc, frames: make(chan bridge.Frame, 1024), closed: make(chan struct{})}}
	go c.read()
	tb.Cleanup(c.Close)
	return c
}

// recorder appends what the client sends to raw.
type recorder struct{ c *shared }

func (r recorder) Write(p []byte) (int, error) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	return r.c.raw.Write(p)
}

func (c *shared) read() {
	defer close(c.closed)
	defer close(c.frames)
	dec := bridge.NewDecoder(io.TeeReader(c.nc, recorder{c}), 0)
	for {
		f, err := dec.Next()
		var se *bridge.SkipError
		if errors.As(err, &se) {
			c.mu.Lock()
			c.skips = append(c.skips, se.Error())
			c.mu.Unlock()
			continue
		}
		if err != nil {
			return
		}
		c.frames <- f
	}
}

// Raw returns every byte the client has sent so far.
func (c *Conn) Raw() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.raw.Bytes())
}

// Skips returns what the decoder skipped of the client's input: a correct
// client sends nothing that is skipped.
func (c *Conn) Skips() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.skips...)
}

// Send writes raw bytes to the client.
func (c *Conn) Send(b []byte) {
	c.tb.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.tb.Fatalf("bridgetest: send: %v", err)
	}
}

// SendMessage sends msg as JSON in an MCP frame.
func (c *Conn) SendMessage(taskID, seq string, msg any) {
	c.tb.Helper()
	payload, err := json.Marshal(msg)
	if err != nil {
		c.tb.Fatal(err)
	}
	b, err := bridge.EncodeFrame(bridge.Frame{Type: bridge.TypeMCP, TaskID: taskID, Seq: seq, Payload: payload})
	if err != nil {
		c.tb.Fatal(err)
	}
	c.Send(b)
}

// Call sends a call message on task "mcp00001", sequence 0000.
func (c *Conn) Call(callID, method string, params any) {
	c.tb.Helper()
	c.SendMessage("mcp00001", "0000", map[string]any{
		"type": "call",
		"data": map[string]any{"call_id": callID, "method": method, "params": params},
	})
}

// Next returns the next frame the client sent, waiting up to Timeout.
func (c *Conn) Next() bridge.Frame {
	c.tb.Helper()
	t := time.NewTimer(Timeout)
	defer t.Stop()
	select {
	case f, ok := <-c.frames:
		if !ok {
			c.tb.Fatal("bridgetest: the client closed the connection")
		}
		return f
	case <-t.C:
		c.tb.Fatalf("bridgetest: no frame from the client within %s", Timeout)
		return bridge.Frame{}
	}
}

// Message is an MCP frame's JSON message.
type Message struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// NextMessage returns the next frame, which must be an MCP frame, and its
// message.
func (c *Conn) NextMessage() (bridge.Frame, Message) {
	c.tb.Helper()
	f := c.Next()
	if f.Type != bridge.TypeMCP {
		c.tb.Fatalf("bridgetest: frame of type 0x%02x, want an MCP frame", f.Type)
	}
	var m Message
	if err := json.Unmarshal(f.Payload, &m); err != nil {
		c.tb.Fatalf("bridgetest: MCP payload is not a message: %v: %q", err, f.Payload)
	}
	return f, m
}

// Services is the data of a register message.
type Services struct {
	Services map[string]struct {
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"services"`
}

// NextRegister returns the next message, which must be a register message.
func (c *Conn) NextRegister() Services {
	c.tb.Helper()
	_, m := c.NextMessage()
	if m.Type != "register" {
		c.tb.Fatalf("bridgetest: message of type %q, want register", m.Type)
	}
	var s Services
	if err := json.Unmarshal(m.Data, &s); err != nil {
		c.tb.Fatalf("bridgetest: register data: %v", err)
	}
	return s
}

// Result is the data of a result message.
type Result struct {
	CallID string `json:"call_id"`
	Result struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   string          `json:"error"`
	} `json:"result"`
}

// Text returns the result's data as a string; it fails the test when the
// data is not a JSON string.
func (r Result) Text(tb testing.TB) string {
	tb.Helper()
	var s string
	if err := json.Unmarshal(r.Result.Data, &s); err != nil {
		tb.Fatalf("bridgetest: result data %s is not a string (error %q)", r.Result.Data, r.Result.Error)
	}
	return s
}

// NextResult returns the next message, which must be a result message.
func (c *Conn) NextResult() Result {
	c.tb.Helper()
	_, m := c.NextMessage()
	if m.Type != "result" {
		c.tb.Fatalf("bridgetest: message of type %q, want result: %s", m.Type, m.Data)
	}
	var r Result
	if err := json.Unmarshal(m.Data, &r); err != nil {
		c.tb.Fatalf("bridgetest: result data: %v", err)
	}
	return r
}

// CloseWrite ends what the test server sends, as a peer that has no more
// to say does, while it goes on reading what the client sends.
func (c *Conn) CloseWrite() {
	c.tb.Helper()
	cw, ok := c.nc.(interface{ CloseWrite() error })
	if !ok {
		c.tb.Fatalf("bridgetest: %T cannot close its writing half", c.nc)
	}
	if err := cw.CloseWrite(); err != nil {
		c.tb.Fatalf("bridgetest: close write: %v", err)
	}
}

// Close closes the connection, as a server that drops its client.
func (c *Conn) Close() { c.nc.Close() }

// Closed is closed when the client has closed the connection (or Close was
// called) and every frame before that has been read.
func (c *Conn) Closed() <-chan struct{} { return c.closed }

// WaitClosed waits up to Timeout for the client to close the connection,
// discarding frames sent meanwhile.
func (c *Conn) WaitClosed() {
	c.tb.Helper()
	t := time.NewTimer(Timeout)
	defer t.Stop()
	for {
		select {
		case _, ok := <-c.frames:
			if !ok {
				return
			}
		case <-t.C:
			c.tb.Fatalf("bridgetest: the client did not close the connection within %s", Timeout)
		}
	}
}

// Step is one frame of a recorded session.
type Step struct {
	// FromClient is true for "C -> S" frames, false for "S -> C".
	FromClient bool
	// Frame is the frame's bytes.
	Frame []byte
}

// ParseSession reads a session written as in the seed document: frames
// after "C -> S: " or "S -> C: ", each running to the line that ends with
// "##END", type bytes written as the four characters \x06, \x04 or \x03,
// and lines starting with "#" between frames as comments.
func ParseSession(text string) ([]Step, error) {
	var steps []Step
	var cur *Step
	var buf bytes.Buffer
	for _, line := range strings.Split(text, "\n") {
		if cur == nil {
			switch {
			case strings.HasPrefix(line, "C -> S: "):
				cur = &Step{FromClient: true}
			case strings.HasPrefix(line, "S -> C: "):
				cur = &Step{}
			case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
				continue
			default:
				return nil, fmt.Errorf("bridgetest: line %q is neither a frame nor a comment", line)
			}
			line = line[len("C -> S: "):]
		} else {
			buf.WriteByte('\n')
		}
		buf.WriteString(line)
		if strings.HasSuffix(line, "##END") {
			b := buf.Bytes()
			for _, t := range []string{`\x06`, `\x04`, `\x03`} {
				n, _ := strconv.ParseUint(t[2:], 16, 8)
				b = bytes.ReplaceAll(b, []byte(t), []byte{byte(n)})
			}
			cur.Frame = bytes.Clone(b)
			steps = append(steps, *cur)
			cur = nil
			buf.Reset()
		}
	}
	if cur != nil {
		return nil, errors.New("bridgetest: the session ends inside a frame")
	}
	return steps, nil
}
