//go:build linux

package exec

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// setParentDeath asks the kernel to kill the command if toolhost dies
// without the chance to kill it (SIGKILL, a crash). Only the command itself
// gets the signal, not what it started; an orderly exit kills the whole
// process group (see Exec.Close).
func setParentDeath(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// onlyZombies reports whether every process of the process group pgid
// is a zombie, from /proc/PID/stat: the state is the first field after the
// command's name in parentheses, the group the third.
func onlyZombies(pgid int) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return false
	}
	want := strconv.Itoa(pgid)
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) > 2 && string(f[2]) == want && string(f[0]) != "Z" && string(f[0]) != "X" {
			return false
		}
	}
	return true
}

// outputPipe makes an output pipe of a command. Only the reading end,
// toolhost's, is non-blocking and watched by the runtime's poller; the
// writing end, the command's, stays blocking, as the command expects, and
// is never registered with the poller (os.Pipe registers both, and
// os/exec then makes the command's end blocking again).
func outputPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		_ = syscall.Close(fds[0])
		_ = syscall.Close(fds[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}

// awaitExit waits until the started, not yet reaped, process p has
// exited, without holding a thread meanwhile: its pidfd is watched by the
// runtime's poller. Wait, which blocks a thread in waitid for as long as
// the command runs (and keeps the runtime's monitor of threads in system
// calls waking every 20 µs meanwhile), then reaps it at once. Where the
// kernel has no pollable pidfd (before Linux 5.10), or the poller cannot
// watch it, awaitExit returns at once and Wait blocks as before.
func awaitExit(p *os.Process) {
	fd, err := unix.PidfdOpen(p.Pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	// A pidfd is readable once its process has exited.
	_ = rc.Read(func(fd uintptr) bool {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, 0)
		return err != nil || n > 0
	})
}
