package host

import (
	"net"
	"time"

	"golang.org/x/sys/windows"
)

// setUserTimeout bounds how long data sent on c may stay unacknowledged
// before Windows gives the connection up (TCP_MAXRT, in whole seconds,
// Windows' TCP_USER_TIMEOUT): a client gone without a word is noticed
// within d, rounded up to a second, instead of after TCP's retransmissions.
func setUserTimeout(c net.Conn, d time.Duration) error {
	secs := max(1, int((d+time.Second-1)/time.Second))
	return setSockopt(c, func(fd uintptr) error {
		return windows.SetsockoptInt(windows.Handle(fd), windows.IPPROTO_TCP, windows.TCP_MAXRT, secs)
	})
}
