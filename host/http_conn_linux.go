//go:build linux

package host

import (
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// setUserTimeout bounds how long data sent on c may stay unacknowledged
// before the kernel gives the connection up (TCP_USER_TIMEOUT): a client
// gone without a word (its network lost, its machine asleep) is noticed
// within d instead of after TCP's retransmissions, some 15 minutes. A slow
// reader still acknowledges what it receives, and is not affected.
func setUserTimeout(c net.Conn, d time.Duration) error {
	return setSockopt(c, func(fd uintptr) error {
		return unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(d/time.Millisecond))
	})
}
