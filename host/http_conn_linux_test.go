//go:build linux

package host

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSetUserTimeout: setUserTimeout, which HTTPServer applies to every
// connection it accepts, sets TCP_USER_TIMEOUT on a real socket.
func TestSetUserTimeout(t *testing.T) {
	c := acceptedConn(t)
	if err := setUserTimeout(c, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	got := sockopt(t, c, func(fd uintptr) (int, error) {
		return unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
	})
	if got != 3000 {
		t.Fatalf("TCP_USER_TIMEOUT = %d ms, want 3000", got)
	}
}
