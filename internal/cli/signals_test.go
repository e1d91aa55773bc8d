package cli

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestSignals: once the handlers are installed by installSignals, a SIGHUP
// to the process cancels the context of Signals instead of ending the
// process, and a second one closes signalsAgain (to cut a shutdown grace
// short) instead of ending it; stop releases the context. Before
// installSignals a signal ends the process (TestSignalBeforeWork in
// cmd/toolhost, with the real binary).
func TestSignals(t *testing.T) {
	installSignals(context.Background()) // not from Signals: nothing to do
	for _, tc := range []struct {
		name    string
		install func(*testing.T, context.Context)
	}{
		{"installSignals", func(_ *testing.T, ctx context.Context) { installSignals(ctx) }},
		{"installSignals twice", func(_ *testing.T, ctx context.Context) { installSignals(ctx); installSignals(ctx) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, stop := Signals(context.Background())
			defer stop()
			tc.install(t, ctx)
			if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("SIGHUP did not cancel the context within 10s")
			}
			// A second signal, after the first was handled, hurries the
			// shutdown; with the handlers gone, it would end this test
			// process.
			select {
			case <-signalsAgain(ctx):
				t.Fatal("signalsAgain closed after one signal")
			case <-time.After(50 * time.Millisecond):
			}
			if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			select {
			case <-signalsAgain(ctx):
			case <-time.After(10 * time.Second):
				t.Fatal("a second SIGHUP did not close signalsAgain within 10s")
			}
		})
	}
	if signalsAgain(context.Background()) != nil {
		t.Fatal("signalsAgain of another context is not nil")
	}
	ctx, stop := Signals(context.Background())
	stop()
	stop() // twice is fine
	if ctx.Err() == nil {
		t.Fatal("stop did not cancel the context")
	}
}
