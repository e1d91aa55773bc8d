package exec

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// setProcessGroup starts the command in a new process group, so that a
// console control event can be sent to it alone.
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// killGroup ends the process pid.
func killGroup(pid int) error {
	if pid <= 0 {
		return nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return os.ErrProcessDone
	}
	return p.Kill()
}

// signals maps the names kill_signal takes to nothing yet on Windows.
var signals = map[string]syscall.Signal{}

// signalGroup cannot send a signal on Windows.
func signalGroup(pid int, name string) error {
	return fmt.Errorf("cannot send %q to process %d", name, pid)
}

// groupGone reports whether the process pid has exited.
func groupGone(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}

// exitDescription says how a command that failed ended.
func exitDescription(ps *os.ProcessState) string {
	if ps == nil {
		return "command failed"
	}
	return fmt.Sprintf("command exited with status %d", ps.ExitCode())
}

// notExecutable reports whether err says the program file has a format
// Windows cannot run.
func notExecutable(err error) bool {
	return errors.Is(err, windows.ERROR_BAD_EXE_FORMAT)
}

// prepareFds does nothing on Windows: handles are not inherited unless
// asked for.
func prepareFds() {}
