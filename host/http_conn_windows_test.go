package host

import (
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestSetUserTimeout: setUserTimeout, which HTTPServer applies to every
// connection it accepts, sets TCP_MAXRT on a real socket, in seconds
// rounded up.
func TestSetUserTimeout(t *testing.T) {
	if testconfig.UnderWine() {
		t.Skip("wine 8 does not implement the TCP_MAXRT socket option (WSAENOPROTOOPT)")
	}
	c := acceptedConn(t)
	if err := setUserTimeout(c, 2500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got int
	var gerr error
	if err := raw.Control(func(fd uintptr) {
		got, gerr = windows.GetsockoptInt(windows.Handle(fd), windows.IPPROTO_TCP, windows.TCP_MAXRT)
	}); err != nil || gerr != nil {
		t.Fatal(err, gerr)
	}
	if got != 3 {
		t.Fatalf("TCP_MAXRT = %d s, want 3", got)
	}
}
