package cli

import (
	"context"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestSignalsWindows: on Windows the stop signals are console control
// events, which Go delivers as os.Interrupt (Ctrl+C, Ctrl+Break) and
// SIGTERM (the console closing, logoff, shutdown). Once the handlers are
// installed, a Ctrl+Break to this process's console group cancels the
// context of Signals and stopReason names it as on Linux.
func TestSignalsWindows(t *testing.T) {
	if testconfig.UnderWine() {
		t.Skip("wine 8 cannot send console control events: GenerateConsoleCtrlEvent fails with \"Invalid access\"")
	}
	ctx, stop := Signals(context.Background())
	defer stop()
	installSignals(ctx)
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, 0); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl+Break did not cancel the context within 10s")
	}
	if got, want := stopReason(ctx).Error(), "toolhost received a stop signal (SIGINT) and is exiting"; got != want {
		t.Errorf("stopReason = %q, want %q", got, want)
	}
}

// TestStopReasonWindows: the console events Go delivers on Windows
// (os.Interrupt for Ctrl+C and Ctrl+Break, SIGTERM for the console
// closing) are stop signals with their Linux names, and a context from
// Signals that no signal has reached gives errSignalled.
func TestStopReasonWindows(t *testing.T) {
	ctx, stop := Signals(context.Background())
	defer stop()
	if got := stopReason(ctx); got != errSignalled {
		t.Errorf("stopReason before a signal = %v, want errSignalled", got)
	}
	for _, tc := range []struct {
		sig  os.Signal
		want string
	}{
		{os.Interrupt, "SIGINT"},
		{syscall.SIGTERM, "SIGTERM"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if !slices.Contains(stopSignals, tc.sig) {
				t.Errorf("%v is not a stop signal", tc.sig)
			}
			if got := signalName(tc.sig); got != tc.want {
				t.Errorf("signalName(%v) = %q, want %q", tc.sig, got, tc.want)
			}
		})
	}
}
