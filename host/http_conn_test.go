package host

import (
	"net"
	"testing"
)

// acceptedConn is the server end of a loopback TCP connection, as
// HTTPServer accepts one; both ends are closed when the test ends.
func acceptedConn(t *testing.T) *net.TCPConn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.TCPConn)
}

// sockopt is the integer option of c's socket that get reads, given its
// descriptor.
func sockopt(t *testing.T, c *net.TCPConn, get func(fd uintptr) (int, error)) int {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got int
	var gerr error
	if err := raw.Control(func(fd uintptr) { got, gerr = get(fd) }); err != nil || gerr != nil {
		t.Fatal(err, gerr)
	}
	return got
}
