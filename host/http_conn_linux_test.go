//go:build linux

package host

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSetUserTimeout: setUserTimeout, which HTTPServer applies to every
// connection it accepts, sets TCP_USER_TIMEOUT on a real socket.
func TestSetUserTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := setUserTimeout(c, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	raw, err := c.(*net.TCPConn).SyscallConn()
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
