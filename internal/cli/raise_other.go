//go:build !unix && !windows

package cli

import "syscall"

// raise does nothing where signals cannot be sent to a process: the held
// signal is dropped, and the command carries on.
func raise(syscall.Signal) {}
