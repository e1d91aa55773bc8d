package bridge

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync"
	"time"

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

// killCommands kills what the calls' backends still run, when the client
// has the means to.
func (c *Client) killCommands() {
	if c.KillCommands != nil {
		c.KillCommands()
	}
}
