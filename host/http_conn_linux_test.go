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
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got int
	var gerr error
	if err := raw.Control(func(fd uintptr) {
		got, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
	}); err != nil || gerr != nil {
		t.Fatal(err, gerr)
	}
	if got != 3000 {
		t.Fatalf("TCP_USER_TIMEOUT = %d ms, want 3000", got)
	}
}
