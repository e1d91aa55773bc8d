//go:build linux

package exec

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// epoll is an epoll instance of a command's outputs (polledOutputs),
// watched by the runtime's poller.
type epoll struct {
	f    *os.File // in the runtime's poller
	fd   int      // f's descriptor, for the calls that do not wait
	conn syscall.RawConn
}

// maxIdleEpolls is how many epoll instances idleEpolls keeps.
const maxIdleEpolls = 16

// idleEpolls keeps the epoll instances of commands that have ended, empty,
// for the next commands: making one and handing it to the runtime's
// poller, then taking it out and closing it, takes six system calls.
var idleEpolls struct {
	mu   sync.Mutex
	list []*epoll
}

// takeEpoll returns an idle epoll instance, or a new one.
func takeEpoll() (*epoll, error) {
	idleEpolls.mu.Lock()
	if n := len(idleEpolls.list); n > 0 {
		ep := idleEpolls.list[n-1]
		idleEpolls.list[n-1] = nil
		idleEpolls.list = idleEpolls.list[:n-1]
		idleEpolls.mu.Unlock()
		return ep, nil
	}
	idleEpolls.mu.Unlock()
	return newEpoll()
}

// newEpoll makes an epoll instance and hands it to the runtime's poller.
func newEpoll() (*epoll, error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	// Non-blocking, so that os.NewFile hands it to the runtime's poller.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, unix.O_NONBLOCK); err != nil {
		_ = unix.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	ep := &epoll{f: os.NewFile(uintptr(fd), "epoll"), fd: fd}
	if ep.conn, err = ep.f.SyscallConn(); err != nil {
		_ = ep.f.Close()
		return nil, err
	}
	return ep, nil
}

// putEpoll gives back ep, which watches nothing any more; err is the last
// error of its waits. An instance that failed otherwise than by passing
// its deadline is closed, as is one past what idleEpolls keeps.
func putEpoll(ep *epoll, err error) {
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) || ep.f.SetReadDeadline(time.Time{}) != nil {
		_ = ep.f.Close()
		return
	}
	idleEpolls.mu.Lock()
	if len(idleEpolls.list) < maxIdleEpolls {
		idleEpolls.list = append(idleEpolls.list, ep)
		ep = nil
	}
	idleEpolls.mu.Unlock()
	if ep != nil {
		_ = ep.f.Close()
	}
}
