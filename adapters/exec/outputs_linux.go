//go:build linux

package exec

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// newOutputs makes a command's output pipes. Where the kernel has pidfds
// that poll (Linux 5.3 and later) they are read on the goroutine that
// waits for the command (polledOutputs); otherwise each by a goroutine of
// its own.
func newOutputs(stdout, stderr io.Writer) (outputs, error) {
	if !pidfdPolls() {
		return newPipeOutputs(stdout, stderr)
	}
	return newPolledOutputs(stdout, stderr)
}

var _ cuttable = (*polledOutputs)(nil)

// pidfdPolls reports whether this kernel opens pidfds (pidfd_open), which
// then poll readable once their process has exited.
var pidfdPolls = sync.OnceValue(func() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	_ = unix.Close(fd)
	return true
})

// polledOutputs are a command's output pipes read on the goroutine that
// waits for it: an epoll instance of the command's own watches both
// reading ends and, once it has started, the command's pidfd, and the
// runtime's poller watches that instance. No goroutine copies a pipe, and
// the command's exit and its last output wake one goroutine, not three.
type polledOutputs struct {
	ep    *os.File // the epoll instance, in the runtime's poller
	epfd  int      // its descriptor, for the calls that do not wait
	conn  syscall.RawConn
	r     [2]int // the reading ends, stdout's and stderr's; -1 once ended
	w     [2]*os.File
	dst   [2]io.Writer
	pidfd int  // the command's, once awaitExit has opened it; else -1
	ended bool // the command has exited (its pidfd polled readable)
	err   error
	// stopped is set by cut, from another goroutine: the wait under way,
	// and every one after it until goOn, returns as soon as it can.
	stopped atomic.Bool
}

// newPolledOutputs makes two pipes and the epoll instance that watches
// their reading ends. Both ends stay blocking: the command's, as the
// command expects, and toolhost's because a pipe is read only once the
// instance has reported it readable, or ended, when a read returns at
// once.
func newPolledOutputs(stdout, stderr io.Writer) (_ outputs, err error) {
	o := &polledOutputs{r: [2]int{-1, -1}, dst: [2]io.Writer{stdout, stderr}, pidfd: -1, epfd: -1}
	defer func() {
		if err != nil {
			o.close()
		}
	}()
	for i := range o.r {
		var fds [2]int
		if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
			return nil, os.NewSyscallError("pipe2", err)
		}
		o.r[i] = fds[0]
		o.w[i] = os.NewFile(uintptr(fds[1]), "|1")
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	// Non-blocking, so that os.NewFile hands it to the runtime's poller.
	if _, err := unix.FcntlInt(uintptr(ep), unix.F_SETFL, unix.O_NONBLOCK); err != nil {
		_ = unix.Close(ep)
		return nil, os.NewSyscallError("fcntl", err)
	}
	o.ep, o.epfd = os.NewFile(uintptr(ep), "epoll"), ep
	if o.conn, err = o.ep.SyscallConn(); err != nil {
		return nil, err
	}
	for _, fd := range o.r {
		// Level-triggered: a pipe with more to read is reported again.
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return nil, os.NewSyscallError("epoll_ctl", err)
		}
	}
	return o, nil
}

// writers returns the writing ends.
func (o *polledOutputs) writers() (stdout, stderr *os.File) { return o.w[0], o.w[1] }

// started closes toolhost's copies of the writing ends.
func (o *polledOutputs) started() {
	for _, w := range o.w {
		if w != nil {
			_ = w.Close()
		}
	}
}

// awaitExit reads the output until the process p has exited (not reaped:
// Wait then reaps it at once). Should its pidfd not open or not be
// watched (descriptors run out), the pipes are read while a look every
// 20 ms says whether p has exited, so that a command filling a pipe is
// not left waiting for a reader until its timeout.
func (o *polledOutputs) awaitExit(p *os.Process) {
	if o.pidfd >= 0 { // watched already, by a wait that was cut short
		o.poll(func() bool { return o.ended }, true)
		return
	}
	fd, err := pidfdOpen(p.Pid, 0)
	if err == nil {
		o.pidfd = fd
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(fd)}
		if err = unix.EpollCtl(o.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err == nil {
			o.poll(func() bool { return o.ended }, true)
			return
		}
	}
	o.readUntil(func() bool { return exited(p.Pid) })
}

// cut makes the wait under way (awaitExit, readWhile or drain) return as
// soon as it can, and every one after it until goOn. It may be called
// from any goroutine: the flag is set before the deadline is, and a wait
// sets its own deadline before it looks at the flag, so that one of the
// two stops it.
func (o *polledOutputs) cut() {
	o.stopped.Store(true)
	_ = o.ep.SetReadDeadline(aLongTimeAgo)
}

// aLongTimeAgo is a deadline that has passed.
var aLongTimeAgo = time.Unix(1, 0)

// wasCut reports whether cut was called (and goOn not since).
func (o *polledOutputs) wasCut() bool { return o.stopped.Load() }

// goOn undoes cut, once its caller has returned, so that the wait can go
// on, on another goroutine.
func (o *polledOutputs) goOn() {
	o.stopped.Store(false)
	_ = o.ep.SetReadDeadline(time.Time{})
	if errors.Is(o.err, os.ErrDeadlineExceeded) {
		o.err = nil
	}
}

// pidfdOpen is unix.PidfdOpen; a test makes it fail.
var pidfdOpen = unix.PidfdOpen

// exited reports whether the child pid has exited, without reaping it
// (waitid with WNOWAIT), or cannot be waited for.
func exited(pid int) bool {
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil {
		return !errors.Is(err, unix.EINTR)
	}
	return info.Signo != 0
}

// drain reads the rest of the output, until both pipes have ended or
// deadline has passed; it makes no timer when they have ended already.
func (o *polledOutputs) drain(deadline time.Time) {
	done := func() bool { return o.r[0] < 0 && o.r[1] < 0 }
	if o.poll(done, false); done() || o.err != nil {
		return
	}
	_ = o.ep.SetReadDeadline(deadline)
	o.poll(done, true)
}

// readWhile reads the output until fin is closed (or both pipes have
// ended), looking at fin every 20 ms: for the rare command that was
// stopped, whose group may take its kill_timeout to exit.
func (o *polledOutputs) readWhile(fin <-chan struct{}) {
	o.readUntil(func() bool {
		select {
		case <-fin:
			return true
		default:
			return false
		}
	})
	<-fin
}

// readUntil reads the output until stop returns true (or both pipes have
// ended, or the epoll instance fails), calling stop at least every 20 ms.
func (o *polledOutputs) readUntil(stop func() bool) {
	closed := func() bool { return stop() || o.r[0] < 0 && o.r[1] < 0 }
	for !closed() && o.err == nil && !o.stopped.Load() {
		_ = o.ep.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		o.poll(closed, true)
		if errors.Is(o.err, os.ErrDeadlineExceeded) {
			o.err = nil
		}
	}
	_ = o.ep.SetReadDeadline(time.Time{})
}

// poll reads what the epoll instance reports until done returns true, the
// instance fails, or its read deadline passes; between reports the
// goroutine is parked in the runtime's poller. Unless wait is set, it
// returns as soon as nothing is ready.
func (o *polledOutputs) poll(done func() bool, wait bool) {
	if o.err != nil {
		return
	}
	var evs [3]unix.EpollEvent
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	err := o.conn.Read(func(ep uintptr) bool {
		for !done() && !o.stopped.Load() {
			n, err := unix.EpollWait(int(ep), evs[:], 0)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				o.err = os.NewSyscallError("epoll_wait", err)
				return true
			}
			if n == 0 {
				return !wait // if waiting, parked until the instance has more
			}
			for _, ev := range evs[:n] {
				o.handle(int(ev.Fd), *buf)
			}
		}
		return true
	})
	if err != nil && o.err == nil {
		o.err = err
	}
}

// handle deals with one descriptor the epoll instance reported ready: it
// reads a pipe once (once only, so that a command that writes without
// pause cannot keep the others waiting), or records the exit its pidfd
// reports.
func (o *polledOutputs) handle(fd int, buf []byte) {
	if fd == o.pidfd {
		o.ended = true
		return
	}
	for i, r := range o.r {
		if r != fd || r < 0 {
			continue
		}
		n, err := syscall.Read(r, buf)
		if n > 0 {
			_, _ = o.dst[i].Write(buf[:n])
		}
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR) {
			return
		}
		if n <= 0 {
			o.closePipe(i) // the end of the output, or an error reading it
		}
		return
	}
}

// closePipe closes the reading end of pipe i, taken out of the epoll
// instance first: closing it would not, while a command started meanwhile
// holds a copy of it until its exec, and the instance would report it
// until then.
func (o *polledOutputs) closePipe(i int) {
	_ = unix.EpollCtl(o.epfd, unix.EPOLL_CTL_DEL, o.r[i], nil)
	_ = syscall.Close(o.r[i])
	o.r[i] = -1
}

// close releases the pipes, the pidfd and the epoll instance.
func (o *polledOutputs) close() {
	o.started()
	for i, r := range o.r {
		if r >= 0 {
			o.closePipe(i)
		}
	}
	if o.pidfd >= 0 {
		_ = syscall.Close(o.pidfd)
		o.pidfd = -1
	}
	if o.ep != nil {
		_ = o.ep.Close()
	}
}
