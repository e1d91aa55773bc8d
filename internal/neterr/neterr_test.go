package neterr

import (
	"net"
	"testing"
)

// TestListenAndDialErrors makes each error for real, on this platform's
// sockets, and checks that the predicate meant for it, and no other,
// matches it.
func TestListenAndDialErrors(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	preds := map[string]func(error) bool{
		"Refused": Refused, "Dropped": Dropped, "AddrInUse": AddrInUse, "AddrNotAvail": AddrNotAvail,
	}
	for _, tc := range []struct {
		name string
		make func() error
		want string
	}{
		{"port in use", func() error { return listen(held.Addr().String()) }, "AddrInUse"},
		{"address not this machine's", func() error { return listen("192.0.2.1:0") }, "AddrNotAvail"}, // TEST-NET-1
		{"nothing listens", func() error {
			c, err := net.Dial("tcp", closedAddr)
			if err == nil {
				c.Close()
			}
			return err
		}, "Refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.make()
			if err == nil {
				t.Fatal("no error")
			}
			for name, pred := range preds {
				if got := pred(err); got != (name == tc.want) {
					t.Errorf("%s(%v) = %v", name, err, got)
				}
			}
		})
	}
}

// listen listens on addr and returns the error, closing the listener
// should there be none.
func listen(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err == nil {
		l.Close()
	}
	return err
}
