//go:build windows

package neterr

import (
	"errors"

	"golang.org/x/sys/windows"
)

// Refused reports whether err is a connection the other end refused:
// Winsock's own error, which syscall.ECONNREFUSED does not match on
// Windows.
func Refused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }

// Dropped reports whether err is a connection the other end reset or
// aborted (Winsock's errors; a write to a closed connection gets one of
// them too).
func Dropped(err error) bool {
	return errors.Is(err, windows.WSAECONNRESET) || errors.Is(err, windows.WSAECONNABORTED)
}

// AddrInUse reports whether err is a listen on an address something else
// listens on already: WSAEADDRINUSE (10048), which syscall.EADDRINUSE does
// not match on Windows.
func AddrInUse(err error) bool { return errors.Is(err, windows.WSAEADDRINUSE) }

// AddrNotAvail reports whether err is a listen on an address that is not
// one of this machine's: WSAEADDRNOTAVAIL (10049), which
// syscall.EADDRNOTAVAIL does not match on Windows.
func AddrNotAvail(err error) bool { return errors.Is(err, windows.WSAEADDRNOTAVAIL) }
