//go:build linux

package exec

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
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
