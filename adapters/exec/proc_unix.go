//go:build unix

package exec

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
)

// setProcessGroup makes the command the leader of a new process group, so
// that it and everything it starts can be killed together.
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setParentDeath(cmd.SysProcAttr)
}

// startGroup does nothing on unix: the process group exists once the
// command has started (setProcessGroup).
func startGroup(*exec.Cmd) error { return nil }

// endGroup does nothing on unix: a process group needs no closing.
func endGroup(int) {}

// killGroup kills the process group led by pid. A group that is gone
// already is not an error.
func killGroup(pid int) error {
	if pid <= 0 {
		return nil // never signal our own group or every process
	}
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// signals maps the names kill_signal takes (killSignals) to
// signals.
var signals = map[string]syscall.Signal{
	"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT, "SIGHUP": syscall.SIGHUP,
	"SIGQUIT": syscall.SIGQUIT, "SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2,
}

// signalText is how messages name the signal kill_signal names: as it is.
func signalText(name string) string { return name }

// signalGroup sends the named signal to the process group led by pid.
// A group that is gone already is os.ErrProcessDone.
func signalGroup(pid int, name string) error {
	sig, ok := signals[name]
	if pid <= 0 || !ok {
		return fmt.Errorf("cannot send %q to process group %d", name, pid)
	}
	err := syscall.Kill(-pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// groupGone reports whether no process is left running in the process
// group led by pid. A process that has exited but was not reaped yet (a
// zombie) counts as gone: it runs nothing, and SIGKILL cannot end it
// sooner. Where the process that adopts orphans does not reap them (a
// container's first process, often), the group's zombies stay.
func groupGone(pid int) bool {
	if pid <= 0 {
		return false
	}
	if errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH) {
		return true
	}
	return onlyZombies(pid)
}

// exitDescription says how a command that failed ended.
func exitDescription(ps *os.ProcessState) string {
	if ps == nil {
		return "command failed"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("command was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("command exited with status %d", ps.ExitCode())
}

// notExecutable reports whether err says the program file has a
// format the system cannot run (ENOEXEC): a script without a #! line,
// say.
func notExecutable(err error) bool {
	return errors.Is(err, syscall.ENOEXEC)
}

// inheritedCloseOnExec marks the file descriptors toolhost itself
// inherited, other than standard input, output and error, close-on-exec,
// so that commands do not inherit them in turn. Go opens every file of its
// own close-on-exec, but what the process that started toolhost left open
// (an editor's or a client's pipes, say) would otherwise reach every
// command, and a command, or what it leaves running, could hold the
// client's pipe open or write to it. It runs once, before the first
// command starts (see prepareFds).
func inheritedCloseOnExec() {
	d, err := os.Open("/dev/fd")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	_ = d.Close()
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd <= 2 {
			continue
		}
		syscall.CloseOnExec(fd)
	}
}

// fdsOnce makes prepareFds run inheritedCloseOnExec once.
var fdsOnce sync.Once

// prepareFds makes sure no command inherits toolhost's inherited files;
// the first call does the work, the others wait for it.
func prepareFds() { fdsOnce.Do(inheritedCloseOnExec) }

// nullInput opens the null device for reading, as a command's standard
// input: an open file of its own, so that what it does with it (flock,
// fcntl's file status flags) no other command sees. It is nil when the
// device cannot be opened; os/exec then opens it. It is opened with
// fewer system calls than os.Open makes (which asks the runtime's poller
// to watch it, and fails to).
func nullInput() *os.File {
	fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), os.DevNull)
}
