package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// stopSignals are the signals that stop toolhost: SIGINT, SIGTERM, and
// SIGHUP (the terminal or the editor that started it went away).
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
			case <-c:
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

// installDelay is how long after Signals the handlers are installed at the
// latest, whatever the command.
const installDelay = 100 * time.Millisecond

// Signals returns a context that is cancelled when toolhost gets SIGINT,
// SIGTERM or SIGHUP, as signal.NotifyContext's is, and the function that
// releases it.
//
// The handlers are installed when a command is about to start something
// (installSignals), and installDelay after the start at the latest, not at
// once: the first signal.Notify starts three threads, about 0.25 ms that a
// start of serve would otherwise spend before it answers initialize
// (BENCHMARKS.md). serve installs them once initialize is answered, and
// before it handles any other request. A signal that comes before they are
// in place ends the process as one during the runtime's start would, which
// is safe: nothing has been started yet.
func Signals(parent context.Context) (context.Context, context.CancelFunc) {
	r := &signalRelay{ready: make(chan struct{}), released: make(chan struct{}), again: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.WithValue(parent, signalsKey{}, r))
	r.cancel = cancel
	t := time.AfterFunc(installDelay, r.install)
	var release sync.Once
	return ctx, func() {
		release.Do(func() {
			t.Stop()
			r.cancel()
			close(r.released)
		})
	}
}

// signalsAgain returns a channel closed when a second stop signal comes,
// for a graceful shutdown to end at once; nil (never closed) for a context
// not from Signals.
func signalsAgain(ctx context.Context) <-chan struct{} {
	if r, ok := ctx.Value(signalsKey{}).(*signalRelay); ok {
		return r.again
	}
	return nil
}

// installSignals installs the signal handlers of a context from Signals
// and returns once they are in place; it does nothing for other contexts.
func installSignals(ctx context.Context) {
	if r, ok := ctx.Value(signalsKey{}).(*signalRelay); ok {
		r.install()
	}
}
