package main

import (
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// stopSignalName is how toolhost names the stop signal sendStop sends:
// Go delivers Ctrl+Break as os.Interrupt.
const stopSignalName = "SIGINT"

// ownGroup starts cmd in a console process group of its own, so that
// sendStop's Ctrl+Break reaches it and not this test.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// sendStop asks a started toolhost (started with ownGroup) to stop as a
// console would: Ctrl+Break to its process group. Under wine, which
// cannot send console control events, the test skips from here on: what
// it checked before has run.
func sendStop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if testconfig.UnderWine() {
		t.Skip("the stop is not checked: wine 8 cannot send console control events (GenerateConsoleCtrlEvent fails with \"Invalid access\")")
	}
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(cmd.Process.Pid)); err != nil {
		t.Fatal(err)
	}
}
