//go:build linux

package adapters

import "syscall"

// execSetParentDeath asks the kernel to kill the command if toolhost dies
// without the chance to kill it (SIGKILL, a crash). Only the command itself
// gets the signal, not what it started; an orderly exit kills the whole
// process group (see Exec.Close).
func execSetParentDeath(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
