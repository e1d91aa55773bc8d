package cli

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestSignals: once awaitSignals returns, a SIGHUP to the process cancels
// the context of Signals instead of ending the process; stop releases it.
// (cmd/toolhost's TestHostExitKillsCommands sends the signals to the real
// binary.)
func TestSignals(t *testing.T) {
	awaitSignals(context.Background()) // returns at once for other contexts
	ctx, stop := Signals(context.Background())
	defer stop()
	awaitSignals(ctx)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not cancel the context within 10s")
	}

	ctx, stop = Signals(context.Background())
	stop()
	if ctx.Err() == nil {
		t.Fatal("stop did not cancel the context")
	}
}
