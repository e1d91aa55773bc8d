//go:build unix && !aix

package plainhttp

import (
	"net"
	"syscall"
)

// canCheckAlive is whether alive can tell; on Unix it can (AIX has no
// MSG_DONTWAIT).
const canCheckAlive = true

// alive reports whether an idle connection is still open with nothing to
// read: a peek that does not wait finds no data and no end of stream.
func alive(nc net.Conn) bool {
	rc := rawConn(nc)
	if rc == nil {
		return false
	}
	ok := false
	var buf [1]byte
	err := rc.Read(func(fd uintptr) bool {
		// Data (n > 0) or the end (n == 0, no error) both mean the
		// connection is not fit for a new request.
		_, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		ok = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true
	})
	return err == nil && ok
}
