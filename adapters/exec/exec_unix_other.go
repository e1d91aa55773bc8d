//go:build unix && !linux

package exec

import "syscall"

// execSetParentDeath does nothing: only Linux has a parent-death signal.
func execSetParentDeath(*syscall.SysProcAttr) {}

// execOnlyZombies reports false: without /proc, a group's zombies cannot be
// told from its running processes, so the group counts as running until
// they are reaped.
func execOnlyZombies(int) bool { return false }
