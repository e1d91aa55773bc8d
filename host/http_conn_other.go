//go:build !linux

package host

import (
	"net"
	"time"
)

// setUserTimeout does nothing here: TCP_USER_TIMEOUT is Linux's. A client
// gone without a word is noticed when TCP's retransmissions give up.
func setUserTimeout(net.Conn, time.Duration) error { return nil }
