package host

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// TestListenErrorAdvice listens where it cannot, on this platform's
// sockets (Winsock's errors on Windows), and checks the advice
// listenError gives for each reason.
func TestListenErrorAdvice(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, tc := range []struct{ name, addr, want string }{
		{"port in use", held.Addr().String(), "choose another port with --listen, or stop what is using it"},
		{"address not this machine's", "192.0.2.1:8080", "the host is not an address of this machine"}, // TEST-NET-1
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp", tc.addr)
			if err == nil {
				l.Close()
				t.Fatalf("listened on %s", tc.addr)
			}
			got := listenError(tc.addr, err)
			if !strings.Contains(got.Error(), "cannot listen on "+tc.addr) || !strings.Contains(got.Error(), tc.want) || !errors.Is(got, err) {
				t.Errorf("listenError = %q, want %q", got, tc.want)
			}
		})
	}
}
