//go:build unix && !linux

package exec

import (
	"io"
	"os"
	"syscall"
)

// setParentDeath does nothing: only Linux has a parent-death signal.
func setParentDeath(*syscall.SysProcAttr) {}

// onlyZombies reports false: without /proc, a group's zombies cannot be
// told from its running processes, so the group counts as running until
// they are reaped.
func onlyZombies(int) bool { return false }

// outputPipe makes an output pipe of a command.
func outputPipe() (r, w *os.File, err error) { return os.Pipe() }

// awaitExit returns at once: Wait waits for the process.
func awaitExit(*os.Process) {}

// newOutputs makes a command's output pipes, each read by a goroutine.
func newOutputs(stdout, stderr io.Writer) (outputs, error) { return newPipeOutputs(stdout, stderr) }
