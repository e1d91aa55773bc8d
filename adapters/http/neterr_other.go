//go:build !windows

package http

import (
	"errors"
	"syscall"
)

// connRefused reports whether err is a connection the other end refused.
func connRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// connDropped reports whether err is a connection the other end reset, or
// closed while it was written to.
func connDropped(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
