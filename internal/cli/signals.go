package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals are the signals that stop toolhost: SIGINT, SIGTERM, and
// SIGHUP (the terminal or the editor that started it went away).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalsKey is the context key of the channel that Signals closes once
// its handlers are installed.
type signalsKey struct{}

// Signals returns a context that is cancelled when toolhost gets SIGINT,
// SIGTERM or SIGHUP, as signal.NotifyContext's is, and the function that
// releases it.
//
// The handlers are installed by a goroutine, while the config loads: the
// first signal.Notify starts three threads, about 0.25 ms that a cold
// start would otherwise spend before it reads the config (BENCHMARKS.md).
// A signal that comes before they are in place ends the process as one
// during the runtime's start would, which is safe: nothing has been
// started yet. The commands wait for them (awaitSignals) before they start
// anything, so a command's process group is always killed on a signal.
func Signals(parent context.Context) (context.Context, context.CancelFunc) {
	ready := make(chan struct{})
	ctx, cancel := context.WithCancel(context.WithValue(parent, signalsKey{}, ready))
	go func() {
		c := make(chan os.Signal, 1)
		signal.Notify(c, stopSignals...)
		close(ready)
		select {
		case <-c:
			cancel()
		case <-ctx.Done():
		}
		signal.Stop(c)
	}()
	return ctx, cancel
}

// awaitSignals returns once the signal handlers of a context from Signals
// are installed, at once for any other context.
func awaitSignals(ctx context.Context) {
	if ready, ok := ctx.Value(signalsKey{}).(chan struct{}); ok {
		<-ready
	}
}
