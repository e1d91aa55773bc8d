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
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(d/time.Millisecond))
	}); err != nil {
		return err
	}
	return serr
}
