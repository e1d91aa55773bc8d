//go:build windows

package plainhttp

import (
	"net"
	"unsafe"

	"golang.org/x/sys/windows"
)

// canCheckAlive is whether alive can tell; on Windows it can, with
// WSAPoll (Windows Vista and later).
const canCheckAlive = true

// wsaPoll is ws2_32's WSAPoll, which golang.org/x/sys/windows does not
// wrap.
var wsaPoll = windows.NewLazySystemDLL("ws2_32.dll").NewProc("WSAPoll")

// pollFD is WSAPOLLFD.
type pollFD struct {
	fd      uintptr // SOCKET
	events  int16
	revents int16
}

// pollRdNorm is POLLRDNORM: normal data may be read without blocking,
// which WSAPoll also reports of a connection the peer closed or reset.
const pollRdNorm = 0x0100

// alive reports whether an idle connection is still open with nothing to
// read: a poll that does not wait finds it neither readable nor hung up
// or failed. A peek (recv with MSG_PEEK) would wait on Windows, where
// sockets are in blocking mode for their overlapped reads; a poll asks
// without reading. No read of the connection's is pending while it is
// idle, so the poll sees what the peer sent or did since the last
// response.
func alive(nc net.Conn) bool {
	rc := rawConn(nc)
	if rc == nil || wsaPoll.Find() != nil {
		return false // not a socket, or no WSAPoll: a new connection
	}
	ok := false
	err := rc.Control(func(fd uintptr) {
		p := pollFD{fd: fd, events: pollRdNorm}
		n, _, _ := wsaPoll.Call(uintptr(unsafe.Pointer(&p)), 1, 0)
		// 0: nothing is ready. 1: data or an end, either unfit for a
		// new request. SOCKET_ERROR (-1): not known to be fit.
		ok = int32(n) == 0 && p.revents == 0
	})
	return err == nil && ok
}
