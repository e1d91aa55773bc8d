//go:build !windows

package neterr

import (
	"errors"
	"syscall"
)

// Refused reports whether err is a connection the other end refused.
func Refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// Dropped reports whether err is a connection the other end reset, or
// closed while it was written to.
func Dropped(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// AddrInUse reports whether err is a listen on an address something else
// listens on already.
func AddrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }

// AddrNotAvail reports whether err is a listen on an address that is not
// one of this machine's.
func AddrNotAvail(err error) bool { return errors.Is(err, syscall.EADDRNOTAVAIL) }
