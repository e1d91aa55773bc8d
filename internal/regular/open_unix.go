//go:build unix

package regular

import "syscall"

// openFlags make an open return at once: O_NONBLOCK, so that a FIFO put in
// place after the stat does not hold it until a writer comes (the open
// file is then refused); O_NOCTTY, so that a terminal is not made the
// process's own.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
