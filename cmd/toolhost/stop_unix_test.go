//go:build unix

package main

import (
	"os/exec"
	"syscall"
	"testing"
)

// stopSignalName is how toolhost names the stop signal sendStop sends.
const stopSignalName = "SIGTERM"

// ownGroup prepares cmd so that sendStop can reach it alone: nothing to
// do on unix, where a signal goes to one process.
func ownGroup(*exec.Cmd) {}

// sendStop asks a started toolhost to stop as a service manager or a
// terminal would: SIGTERM.
func sendStop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}
