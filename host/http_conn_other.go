//go:build !linux && !windows

package host

import (
	"net"
	"time"
)

// setUserTimeout does nothing here: TCP_USER_TIMEOUT is Linux's, and
// TCP_MAXRT Windows'. A client gone without a word is noticed when TCP's
// retransmissions give up.
func setUserTimeout(net.Conn, time.Duration) error { return nil }
