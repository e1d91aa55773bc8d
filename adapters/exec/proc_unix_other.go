//go:build unix && !linux

package exec

import "syscall"

// setParentDeath does nothing: only Linux has a parent-death signal.
func setParentDeath(*syscall.SysProcAttr) {}

// onlyZombies reports false: without /proc, a group's zombies cannot be
// told from its running processes, so the group counts as running until
// they are reaped.
func onlyZombies(int) bool { return false }
