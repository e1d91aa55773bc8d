//go:build linux || windows

package host

import "net"

// setSockopt calls set with the descriptor of c's socket, as
// setUserTimeout sets an option on it; a connection that is not TCP has
// no such option, and is left alone.
func setSockopt(c net.Conn, set func(fd uintptr) error) error {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = set(fd) }); err != nil {
		return err
	}
	return serr
}
