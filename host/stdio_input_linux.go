package host

import (
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// pollableInput returns a reader of in, toolhost's standard input, that
// the runtime's poller watches, when in is a pipe read with blocking
// reads: the pipe opened again, through /proc/self/fd, non-blocking. A
// blocking read holds a thread in a system call while toolhost waits for
// the next message, and so keeps the runtime's monitor of system calls
// waking every 20 µs, even while a call's command runs. The new open file is
// toolhost's own: the client's, which it may share with other processes,
// stays as it is. in itself is returned when it is not an *os.File of a
// pipe, is non-blocking already, or cannot be opened again or polled.
func pollableInput(in io.Reader) io.Reader {
	f, ok := in.(*os.File)
	if !ok {
		return in
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return in
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return in
	}
	fd, blocking := -1, false
	_ = rc.Control(func(s uintptr) {
		fl, err := unix.FcntlInt(s, unix.F_GETFL, 0)
		if err != nil || fl&unix.O_NONBLOCK != 0 {
			return
		}
		blocking = true
		fd, err = unix.Open("/proc/self/fd/"+strconv.Itoa(int(s)), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			fd = -1
		}
	})
	if !blocking || fd < 0 {
		return in
	}
	p := os.NewFile(uintptr(fd), f.Name())
	// A file the poller does not watch has no deadlines: its reads would
	// fail at once instead of waiting.
	if p.SetReadDeadline(time.Time{}) != nil {
		_ = p.Close()
		return in
	}
	return p
}
