package host

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/adapters"
)

// Peer is the client a call comes from, as far as a call needs it: where
// its log messages and progress go, and whom to ask for confirmation.
// Front ends without an MCP client (toolhost call, the framed bridge) pass
// a nil Peer: logs and progress go nowhere and nobody can be asked.
type Peer interface {
	// Log sends a logging notification; the client's level filters it.
	Log(ctx context.Context, level mcp.LoggingLevel, logger, msg string)
	// Progress sends a progress notification. It is only called when
	// WantsProgress is true.
	Progress(ctx context.Context, progress, total float64, msg string)
	// WantsProgress reports whether the request asked for progress (it
	// carried a progress token).
	WantsProgress() bool
	// CanElicit reports whether the client can be asked for input.
	CanElicit() bool
	// Elicit asks the user through the client.
	Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
}

// sessionPeer is the Peer of a call made over an MCP session.
type sessionPeer struct {
	ss    *mcp.ServerSession
	token any // the request's progress token; nil when none
	// noted is the session's logging level as the server noted it, and
	// ownLevel is set when the request carries a level of its own (see
	// wants); noted is nil where the level is not known.
	noted    func(*mcp.ServerSession) (mcp.LoggingLevel, bool)
	ownLevel bool
}

var _ Peer = (*sessionPeer)(nil)

func (p *sessionPeer) Log(ctx context.Context, level mcp.LoggingLevel, logger, msg string) {
	_ = p.ss.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: logger, Data: msg})
}

func (p *sessionPeer) Progress(ctx context.Context, progress, total float64, msg string) {
	_ = p.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: progress, Total: total, Message: msg})
}

func (p *sessionPeer) WantsProgress() bool { return p.token != nil }

func (p *sessionPeer) CanElicit() bool {
	ip := p.ss.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil
}

func (p *sessionPeer) Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return p.ss.Elicit(ctx, params)
}

// statelessKey marks the context of a request served over streamable HTTP
// with --stateless: the server cannot send the client requests, so nobody
// can be asked, whatever the client supports.
type statelessKey struct{}

func withStateless(ctx context.Context) context.Context {
	return context.WithValue(ctx, statelessKey{}, true)
}

func isStateless(ctx context.Context) bool {
	v, _ := ctx.Value(statelessKey{}).(bool)
	return v
}

// canAsk reports whether the user can be asked for input during a call.
func canAsk(ctx context.Context, peer Peer) bool {
	return peer != nil && !isStateless(ctx) && peer.CanElicit()
}

// confirmRefusal is the error of a call of a tool with confirm that nobody
// can be asked to confirm (and whose confirm_fallback is not "allow").
func confirmRefusal(ctx context.Context, tool, question string) string {
	if isStateless(ctx) {
		return fmt.Sprintf("the tool %s needs the user's confirmation (%q), and this server cannot ask the user: it serves HTTP with --stateless, "+
			"where it cannot send the client requests such as elicitation, whatever the client supports; serve without --stateless, "+
			"or have the config's author set confirm_fallback = \"allow\" on the tool %s", tool, question, tool)
	}
	return fmt.Sprintf("the tool %s needs the user's confirmation (%q), and this client cannot ask the user (it does not support elicitation); "+
		"ask the user to run it from a client that does (with toolhost call: --yes), or the config's author to set confirm_fallback = \"allow\"", tool, question)
}

// askRefusal is the error of a call of a tool with ask when nobody can be
// asked; fields are the names of the form's fields.
func askRefusal(ctx context.Context, tool, message string, fields []string) string {
	if isStateless(ctx) {
		return fmt.Sprintf("the tool %s needs to ask the user for details (%q), and this server cannot ask the user: it serves HTTP with --stateless, "+
			"where it cannot send the client requests such as elicitation, whatever the client supports; serve without --stateless to use this tool", tool, message)
	}
	answers := make([]string, len(fields))
	for i, f := range fields {
		answers[i] = "--answer " + f + "=..."
	}
	return fmt.Sprintf("the tool %s needs to ask the user for details (%q), and this client cannot ask the user (it does not support elicitation); ask the user to run it from a client that does (with toolhost call: %s)", tool, message, strings.Join(answers, " "))
}

// DefaultHeartbeat is how often a call that reports no progress of its own
// sends an elapsed-time progress notification, when the request asked for
// progress.
const DefaultHeartbeat = time.Second

// heartbeatStep is how far each heartbeat moves the progress value. Progress
// must increase with every notification, and the heartbeat has no unit of
// its own (the elapsed time is in its message): tiny steps keep it below
// whatever the backend reports later, in whatever unit, so that the
// backend's first report is never dropped as going backwards.
const heartbeatStep = 1e-6

// ProgressBurst and ProgressInterval bound the progress notifications of
// one call, as a token bucket: ProgressBurst at once, then one every
// ProgressInterval. A backend that reports faster has its reports
// coalesced, the latest going out once the bucket allows, and the last
// one when the call returns. The burst lets the few reports of a short
// call through as they were made, however late a loaded machine reads
// them.
const (
	ProgressBurst    = 5
	ProgressInterval = 100 * time.Millisecond
)

// LogBurst and LogRate bound the log notifications of one call, as a
// token bucket: LogBurst lines at once, then LogRate a second. The lines
// over are dropped, and counted in one line that says so, sent once no
// line has been dropped for logQuiet, or when the call returns.
const (
	LogBurst = 100
	LogRate  = 20
)

// logQuiet is how long a flood of log lines must have stopped for the line
// that counts the dropped ones to go out before the call returns.
const logQuiet = time.Second

// callReporter is the adapters.Reporter of one call: it passes log lines
// to the peer, at most LogBurst at once and LogRate a second, and progress
// so that it never goes backwards, at most ProgressBurst at once and then
// one every ProgressInterval, with an elapsed-time heartbeat until the
// backend reports progress itself.
type callReporter struct {
	ctx  context.Context
	peer Peer
	tool string

	mu       sync.Mutex
	last     float64 // the last progress sent
	sent     bool
	reported bool          // the backend reported progress: no more heartbeats
	done     bool          // the call returned: nothing more is sent
	waiting  bool          // the call waits for a slot (max_concurrent_calls)
	stop     chan struct{} // closed by finish; nil without a heartbeat
	// progressTokens are the progress notifications that may go now, and
	// progressFilled when they were last topped up.
	progressTokens float64
	progressFilled time.Time
	// pending is the latest progress not sent yet, for lack of time since
	// the last; pendingTimer sends it.
	pending      *progressNote
	pendingTimer *time.Timer

	tokens       float64   // log lines that may go now
	filledAt     time.Time // when tokens was last topped up
	dropped      int       // log lines dropped since the last count was sent
	droppedLevel mcp.LoggingLevel
	droppedAt    time.Time // when the last line was dropped
	droppedTimer *time.Timer
}

// progressNote is a progress notification held back.
type progressNote struct {
	progress, total float64
	msg             string
}

var _ adapters.Reporter = (*callReporter)(nil)

// newCallReporter returns the reporter of a call, or nil when the call has
// no peer. Call finish when the call returns.
func newCallReporter(ctx context.Context, peer Peer, tool string, heartbeat time.Duration) *callReporter {
	if peer == nil {
		return nil
	}
	now := time.Now()
	c := &callReporter{ctx: ctx, peer: peer, tool: tool, tokens: LogBurst, filledAt: now,
		progressTokens: ProgressBurst, progressFilled: now}
	if peer.WantsProgress() && heartbeat > 0 {
		c.stop = make(chan struct{})
		go c.heartbeat(heartbeat)
	}
	return c
}

// setWaiting says whether the call waits for a slot, for the heartbeat's
// message: a call in line has not started running.
func (c *callReporter) setWaiting(w bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.waiting = w
	c.mu.Unlock()
}

func (c *callReporter) heartbeat(every time.Duration) {
	start := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	beats := 0
	for {
		select {
		case <-c.stop:
			return
		case <-c.ctx.Done():
			return
		case now := <-t.C:
			c.mu.Lock()
			quiet, waiting := !c.reported, c.waiting
			c.mu.Unlock()
			if quiet {
				beats++
				elapsed := now.Sub(start).Round(time.Second / 10)
				msg := fmt.Sprintf("running for %s", elapsed)
				if waiting {
					msg = fmt.Sprintf("waiting for %s for other calls to finish (max_concurrent_calls)", elapsed)
				}
				c.send(float64(beats)*heartbeatStep, 0, msg, false)
			}
		}
	}
}

// Log implements adapters.Reporter. A line over the call's rate is
// dropped and counted; the count goes out as a line of its own once the
// flood has stopped for logQuiet, or when the call returns. The lock is
// held while sending, so that the count follows the lines sent before it.
func (c *callReporter) Log(level, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	now := time.Now()
	c.tokens = min(LogBurst, c.tokens+now.Sub(c.filledAt).Seconds()*LogRate)
	c.filledAt = now
	if c.tokens < 1 {
		if c.dropped == 0 || logLevelAbove(mcp.LoggingLevel(level), c.droppedLevel) {
			c.droppedLevel = mcp.LoggingLevel(level)
		}
		c.dropped++
		c.droppedAt = now
		if c.droppedTimer == nil {
			c.droppedTimer = time.AfterFunc(logQuiet, c.droppedQuiet)
		}
		return
	}
	c.tokens--
	c.peer.Log(c.ctx, mcp.LoggingLevel(level), c.tool, msg)
}

// droppedQuiet sends the count of the log lines dropped once none has been
// for logQuiet, and waits longer while they still are.
func (c *callReporter) droppedQuiet() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || c.dropped == 0 {
		c.droppedTimer = nil
		return
	}
	if wait := logQuiet - time.Since(c.droppedAt); wait > 0 {
		c.droppedTimer.Reset(wait)
		return
	}
	c.droppedTimer = nil
	c.sendDroppedLocked()
}

// sendDroppedLocked sends the count of the log lines dropped, if any, at
// the highest level among them, so that a client that would have seen one
// sees the count. c.mu is held.
func (c *callReporter) sendDroppedLocked() {
	if c.dropped == 0 {
		return
	}
	lines := "log lines"
	if c.dropped == 1 {
		lines = "log line"
	}
	msg := fmt.Sprintf("%d %s dropped: more than %d per second (after the first %d)", c.dropped, lines, LogRate, LogBurst)
	c.dropped = 0
	c.peer.Log(c.ctx, c.droppedLevel, c.tool, msg)
}

// logLevelAbove reports whether level a is more severe than b.
func logLevelAbove(a, b mcp.LoggingLevel) bool {
	return slices.Index(adapters.LogLevels, string(a)) > slices.Index(adapters.LogLevels, string(b))
}

// Progress implements adapters.Reporter.
func (c *callReporter) Progress(progress, total float64, msg string) {
	c.send(progress, total, msg, true)
}

// send sends progress unless it would not go forward, or holds it back
// until the bucket allows (see ProgressBurst), in place of any held back
// before, unless that one is due already: then it goes first. The lock is
// held while sending, so that notifications leave in order.
func (c *callReporter) send(progress, total float64, msg string, fromBackend bool) {
	if !c.peer.WantsProgress() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !fromBackend && c.reported {
		// A heartbeat that was due as the backend's first report came in:
		// it must not go after that report, or take its place if held back.
		return
	}
	if fromBackend && !c.reported {
		c.reported = true
		if c.sent && progress <= c.last {
			// Only heartbeats went before, and the backend starts at 0 or
			// below their tiny steps: keep its report, a hair above them.
			progress = c.last + heartbeatStep/1000
		}
	}
	if c.done || (c.sent && progress <= c.last) {
		return
	}
	note := &progressNote{progress: progress, total: total, msg: msg}
	now := time.Now()
	if c.pending != nil && c.progressWait(now) == 0 {
		// The progress held back is due, and its timer is late (a loaded
		// machine): it goes now, not replaced by this one, which waits
		// its turn, unless it no longer goes forward.
		c.sendLocked(c.pending)
		c.pending = nil
		if progress <= c.last {
			return
		}
	}
	if wait := c.progressWait(now); wait > 0 {
		c.pending = note
		if c.pendingTimer == nil {
			c.pendingTimer = time.AfterFunc(wait, c.sendPending)
		}
		return
	}
	c.pending = nil
	c.sendLocked(note)
}

// sendPending sends the progress held back, once its time has come.
func (c *callReporter) sendPending() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pendingTimer = nil
	if c.done || c.pending == nil {
		return
	}
	// A timer armed before a later send went out directly (its wait over
	// while the timer was late, on a loaded machine) fires early for the
	// progress held back since: it waits its turn again.
	if wait := c.progressWait(time.Now()); wait > 0 {
		c.pendingTimer = time.AfterFunc(wait, c.sendPending)
		return
	}
	note := c.pending
	c.pending = nil
	c.sendLocked(note)
}

// progressWait tops up the progress bucket and returns how long until it
// holds a notification, 0 when it does now. c.mu is held.
func (c *callReporter) progressWait(now time.Time) time.Duration {
	c.progressTokens = min(ProgressBurst, c.progressTokens+float64(now.Sub(c.progressFilled))/float64(ProgressInterval))
	c.progressFilled = now
	if c.progressTokens >= 1 {
		return 0
	}
	return time.Duration((1 - c.progressTokens) * float64(ProgressInterval))
}

// sendLocked sends a progress notification, taking one from the bucket
// (the last, sent when the call returns, may take one it does not have).
// c.mu is held.
func (c *callReporter) sendLocked(n *progressNote) {
	total := n.total
	if total > 0 && n.progress > total {
		total = 0 // a total that was passed is no total
	}
	c.last, c.sent = n.progress, true
	c.progressTokens--
	c.peer.Progress(c.ctx, n.progress, total, n.msg)
}

// finish sends the progress held back and the count of dropped log lines,
// stops the heartbeat, and drops whatever is reported after the call
// returned.
func (c *callReporter) finish() {
	if c == nil {
		return
	}
	c.mu.Lock()
	if !c.done {
		if c.pending != nil {
			c.sendLocked(c.pending)
			c.pending = nil
		}
		c.sendDroppedLocked()
		c.done = true
		if c.stop != nil {
			close(c.stop)
		}
		for _, t := range []*time.Timer{c.pendingTimer, c.droppedTimer} {
			if t != nil {
				t.Stop()
			}
		}
	}
	c.mu.Unlock()
}
