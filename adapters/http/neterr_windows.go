//go:build windows

package http

import (
	"errors"

	"golang.org/x/sys/windows"
)

// connRefused reports whether err is a connection the other end refused:
// Winsock's own error, which syscall.ECONNREFUSED does not match on
// Windows.
func connRefused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }

// connDropped reports whether err is a connection the other end reset or
// aborted (Winsock's errors; a write to a closed connection gets one of
// them too).
func connDropped(err error) bool {
	return errors.Is(err, windows.WSAECONNRESET) || errors.Is(err, windows.WSAECONNABORTED)
}
