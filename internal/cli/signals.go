package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// stopSignals are the signals that stop toolhost: SIGINT, SIGTERM, and
// SIGHUP (the terminal or the editor that started it went away). On
// Windows, Go delivers Ctrl+C and Ctrl+Break as os.Interrupt and the
// console closing (and logoff, shutdown) as SIGTERM; SIGHUP never comes
// there. Windows ends a process that is still running a few seconds after
// its console closed, whatever its handler does: its commands then end
// with it, their job objects being closed. An editor that goes away
// without a console closes toolhost's stdin instead, which ends serve on
// every platform.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalsKey is the context key of a context's signalRelay.
type signalsKey struct{}

// signalRelay cancels a context when a stop signal comes, once installed.
type signalRelay struct {
	once     sync.Once
	ready    chan struct{} // closed once the handlers are installed
	released chan struct{} // closed by the function Signals returns
	again    chan struct{} // closed when a second signal comes
	cancel   context.CancelFunc
	// received is the first stop signal that came (an os.Signal), stored
	// before the context is cancelled.
	received atomic.Value
}

// install installs the signal handlers, once; later calls return when
// they are in place.
func (r *signalRelay) install() {
	r.once.Do(func() {
		c := make(chan os.Signal, 1)
		signal.Notify(c, stopSignals...)
		close(r.ready)
		go func() {
			defer signal.Stop(c)
			select {
			case sig := <-c:
				r.received.Store(sig)
				r.cancel()
			case <-r.released:
				return
			}
			// The handlers stay until the context is released, as with
			// signal.NotifyContext: a second Ctrl-C while calls get their
			// shutdown grace does not kill toolhost, which would leave
			// their commands (in process groups of their own) running; it
			// cuts the grace short (signalsAgain), and the calls are
			// stopped, their commands killed.
			select {
			case <-c:
				close(r.again)
			case <-r.released:
				return
			}
			<-r.released
		}()
	})
}

// Signals returns a context that is cancelled when toolhost gets SIGINT,
// SIGTERM or SIGHUP, as signal.NotifyContext's is, and the function that
// releases it.
//
// The handlers are installed only when a command is about to start
// something that must be stopped in order (installSignals): calls whose
// commands run in process groups of their own, a server with connections.
// serve installs them once initialize is answered, and before it handles
// any other request; call, bridge and serve --http before they start
// anything. Until then, and in commands that start nothing (validate,
// whose examples run offline, inspect, init, fmt, which holds them back
// only while it renames a file into place: holdSignals), a signal ends the
// process at once, as it would any program: a load of a large config stops
// when it is told to, and nothing has been started that needs stopping.
// Not installing them at the start also saves serve the threads the
// first signal.Notify starts before it answers initialize (BENCHMARKS.md).
func Signals(parent context.Context) (context.Context, context.CancelFunc) {
	r := &signalRelay{ready: make(chan struct{}), released: make(chan struct{}), again: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.WithValue(parent, signalsKey{}, r))
	r.cancel = cancel
	var release sync.Once
	return ctx, func() {
		release.Do(func() {
			r.cancel()
			close(r.released)
		})
	}
}

// holdSignals holds the stop signals back until the function it returns
// is called, which then ends the process by the first that came, if one
// did, as it would have ended without the hold (or carries on, when that
// signal is ignored, as under nohup). It is for a short step that must not
// be cut in two, such as fmt's write and rename of a rewritten file, in a
// command that has not installed the handlers: anywhere else a signal ends
// it at once.
func holdSignals() (release func()) {
	ignored := ignoredAtStart()
	c := make(chan os.Signal, len(stopSignals))
	signal.Notify(c, stopSignals...)
	return func() {
		signal.Stop(c)
		for {
			select {
			case s := <-c:
				if sig, ok := s.(syscall.Signal); ok && !ignored[s] {
					raise(sig)
				}
			default:
				return
			}
		}
	}
}

// ignoredAtStart returns the stop signals the process ignores (nohup,
// trap "" INT), as they were before the first holdSignals: Notify clears
// what signal.Ignored reports, and Stop does not set it again, though the
// signal is ignored again. A held signal that is ignored is dropped at the
// release, not raised to no effect.
var ignoredAtStart = sync.OnceValue(func() map[os.Signal]bool {
	ignored := map[os.Signal]bool{}
	for _, sig := range stopSignals {
		ignored[sig] = signal.Ignored(sig)
	}
	return ignored
})

// signalsAgain returns a channel closed when a second stop signal comes,
// for a graceful shutdown to end at once; nil (never closed) for a context
// not from Signals.
func signalsAgain(ctx context.Context) <-chan struct{} {
	if r, ok := ctx.Value(signalsKey{}).(*signalRelay); ok {
		return r.again
	}
	return nil
}

// stopReason is the reason the calls a stop signal stops give in their
// results: that toolhost received it, naming it, and is exiting.
// errSignalled, which names no signal, when ctx is not from Signals or no
// signal has come.
func stopReason(ctx context.Context) error {
	if r, ok := ctx.Value(signalsKey{}).(*signalRelay); ok {
		if sig, ok := r.received.Load().(os.Signal); ok {
			return fmt.Errorf("toolhost received a stop signal (%s) and is exiting", signalName(sig))
		}
	}
	return errSignalled
}

// signalName is the name of a stop signal as kill and the docs spell it
// (Go's own text for SIGTERM is "terminated").
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// installSignals installs the signal handlers of a context from Signals
// and returns once they are in place; it does nothing for other contexts.
func installSignals(ctx context.Context) {
	if r, ok := ctx.Value(signalsKey{}).(*signalRelay); ok {
		r.install()
	}
}
