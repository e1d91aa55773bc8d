package host

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/toolhost/toolhost/adapters"
)

// ShutdownGrace is how long calls in flight may go on after the client
// closes stdin before they are cancelled, and how long, at most, the
// commands of the calls stopped as toolhost exits get to end on their
// kill_signal once the calls are answered, before they are killed.
const ShutdownGrace = 2 * time.Second

// errStdinClosed is the reason the calls still running after the client
// closed stdin give in their results.
var errStdinClosed = fmt.Errorf("the client closed toolhost's stdin, which ends the session; calls still running %s later are stopped", ShutdownGrace)

// StdioOptions configures ServeStdio.
type StdioOptions struct {
	// Transport is the stdio transport the session runs on; its Stop is
	// set by ServeStdio.
	Transport StdioTransport
	// StopReason gives the reason the calls a stop gives in their
	// results; it is called once the stop has come.
	StopReason func() error
	// Hurry, closed on a second stop signal, cuts the shutdown grace short:
	// the calls still running are no longer waited for and their commands
	// are killed.
	Hurry <-chan struct{}
	// Stopped, when set, is called once the session has ended and before
	// the commands of the calls stopped are waited for: what was started
	// beside the server (a config watcher) is stopped there.
	Stopped func()
}

// ServeStdio serves srv to one client over opts.Transport until the client
// closes stdin or stop ends (a stop signal), then shuts down so that
// nothing the host started outlives it.
//
// A stop stops the calls in flight at once, and they answer at once,
// saying why (StopReason), without waiting for their commands, which get
// their kill_signal: the transport then ends the session as at the end of
// the input (StdioTransport.Stop). Should the answers not be out within
// ShutdownGrace, or should Hurry close, the session stops waiting for them
// and the commands are killed with their process groups (the SDK still
// waits for its handlers to return before Run does).
//
// The client closing stdin is how MCP ends a stdio session: calls in
// flight get ShutdownGrace to finish, then are cancelled and answer; an
// answer still not out ShutdownGrace after that (one the SDK could not
// send) is no longer waited for, so that the process ends.
//
// Once the session has ended, the commands of the calls stopped get
// ShutdownGrace at most to exit on their kill_signal (less after Hurry);
// a command still in its kill_timeout then is killed, with what it
// started. ServeStdio returns what Server.Run returned.
func ServeStdio(stop context.Context, srv *Server, opts StdioOptions) error {
	// session is the stdio session's context: it ends when the session
	// stops waiting for answers (endSession), and so does the wait for the
	// commands stopped.
	session, cancelSession := context.WithCancel(context.WithoutCancel(stop))
	defer cancelSession()
	endSession := func() {
		KillCommands()
		cancelSession()
	}
	stopOnSignal := context.AfterFunc(stop, func() {
		srv.ShutdownBecause(opts.StopReason())
		t := time.NewTimer(ShutdownGrace)
		defer t.Stop()
		select {
		case <-t.C:
		case <-opts.Hurry:
		case <-session.Done():
		}
		endSession()
	})
	defer stopOnSignal()
	t := opts.Transport
	if t.Tasks == nil {
		t.Tasks = srv
	}
	t.In = &eofReader{r: pollableInput(t.In), eof: func() {
		time.AfterFunc(ShutdownGrace, func() {
			srv.ShutdownBecause(errStdinClosed)
			time.AfterFunc(ShutdownGrace, endSession)
		})
	}}
	t.Stop = stop.Done()
	err := srv.Run(session, &t)
	if opts.Stopped != nil {
		opts.Stopped()
	}
	WaitCommands(session, opts.Hurry)
	KillCommands()
	return err
}

// WaitCommands waits until the commands the calls' backends still run
// have ended, for ShutdownGrace at most: less when ctx ends first or hurry
// is closed (a second stop signal).
func WaitCommands(ctx context.Context, hurry <-chan struct{}) {
	ctx, cancel := context.WithTimeout(ctx, ShutdownGrace)
	defer cancel()
	if hurry != nil {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-hurry:
				cancel()
			case <-done:
			}
		}()
	}
	adapters.WaitCommands(ctx)
}

// KillCommands kills at once, with their process groups, the commands the
// calls' backends still run: those of calls stopped, still in their
// kill_timeout. A host calls it last as it exits.
func KillCommands() { adapters.KillCommands() }

// Exiting makes cause the reason of calls stopped because the host is
// exiting: they answer at once, without waiting for their commands
// (adapters.ErrHostExiting).
func Exiting(cause error) error { return adapters.HostExiting(cause) }

// eofReader calls eof once, when reading r first fails (at end of input
// or on an error).
type eofReader struct {
	r    io.Reader
	eof  func()
	once sync.Once
}

// Read reads from r, calling eof on its first error.
func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(e.eof)
	}
	return n, err
}
