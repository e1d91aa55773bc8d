//go:build unix

package cli

import (
	"syscall"
	"time"
)

// raise sends sig to this process, with its default action in place: for
// a stop signal, the process ends, its exit status saying by which signal.
// When the signal is ignored, raise returns after a moment.
func raise(sig syscall.Signal) {
	if syscall.Kill(syscall.Getpid(), sig) == nil {
		// Delivery is asynchronous; nothing more should happen first.
		time.Sleep(time.Second)
	}
}
