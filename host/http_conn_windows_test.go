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
	got := sockopt(t, c, func(fd uintptr) (int, error) {
		return windows.GetsockoptInt(windows.Handle(fd), windows.IPPROTO_TCP, windows.TCP_MAXRT)
	})
	if got != 3 {
		t.Fatalf("TCP_MAXRT = %d s, want 3", got)
	}
}
