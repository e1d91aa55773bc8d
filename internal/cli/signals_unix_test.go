//go:build unix

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestSignals: once the handlers are installed by installSignals, a SIGHUP
// to the process cancels the context of Signals instead of ending the
// process, stopReason names it, and a second one closes signalsAgain (to
// cut a shutdown grace short) instead of ending it; stop releases the
// context. Before installSignals a signal ends the process
// (TestSignalBeforeWork in cmd/toolhost, with the real binary).
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
			if got, want := stopReason(ctx).Error(), "toolhost received a stop signal (SIGHUP) and is exiting"; got != want {
				t.Errorf("stopReason = %q, want %q", got, want)
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
	if got := stopReason(context.Background()); got != errSignalled {
		t.Errorf("stopReason of another context = %v, want errSignalled", got)
	}
	ctx, stop := Signals(context.Background())
	if got := stopReason(ctx); got != errSignalled {
		t.Errorf("stopReason before a signal = %v, want errSignalled", got)
	}
	stop()
	stop() // twice is fine
	if ctx.Err() == nil {
		t.Fatal("stop did not cancel the context")
	}
}

// TestHoldSignals runs itself in a child process that holds the stop
// signals back, gets SIGINT, goes on, then lets go: the child ends by
// SIGINT at the release, not before it and not after.
func TestHoldSignals(t *testing.T) {
	if os.Getenv("TOOLHOST_HOLD_SIGNALS_CHILD") == "1" {
		release := holdSignals()
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(100 * time.Millisecond)
		fmt.Println("still here while held")
		release()
		fmt.Println("still here after the release")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldSignals$")
	cmd.Env = append(os.Environ(), "TOOLHOST_HOLD_SIGNALS_CHILD=1")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child: %v, want it ended by SIGINT; stdout %q", err, out)
	}
	if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("child: %v, want it ended by SIGINT", ee)
	}
	if string(out) != "still here while held\n" {
		t.Errorf("child's stdout %q, want only the line written while held", out)
	}
}

// TestHoldSignalsIgnored: a signal the process ignores (as under nohup, or
// trap "" INT) is dropped at the release, not raised, and the process
// goes on.
func TestHoldSignalsIgnored(t *testing.T) {
	if os.Getenv("TOOLHOST_HOLD_SIGNALS_CHILD") == "ignored" {
		signal.Ignore(syscall.SIGINT)
		// Twice: Notify clears what signal.Ignored reports, and the
		// second hold must still know.
		slow := false
		for range 2 {
			release := holdSignals()
			_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
			time.Sleep(100 * time.Millisecond)
			start := time.Now()
			release()
			slow = slow || time.Since(start) > 500*time.Millisecond
		}
		fmt.Printf("went on after %v\n", slow)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldSignalsIgnored$")
	cmd.Env = append(os.Environ(), "TOOLHOST_HOLD_SIGNALS_CHILD=ignored")
	out, err := cmd.Output()
	if err != nil || string(out) != "went on after false\n" {
		t.Fatalf("child: %v, stdout %q; want it to go on at once", err, out)
	}
}
