//go:build unix && !linux

package adapters

import "syscall"

// execSetParentDeath does nothing: only Linux has a parent-death signal.
func execSetParentDeath(*syscall.SysProcAttr) {}
