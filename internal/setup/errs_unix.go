//go:build unix

package setup

import (
	"errors"
	"syscall"
)

// isDirErr reports whether err says a folder stands where a file should.
func isDirErr(err error) bool { return errors.Is(err, syscall.EISDIR) }

// notDirErr reports whether err says a file stands where a folder should.
func notDirErr(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// isLoopErr reports whether err says symbolic links lead in a circle.
func isLoopErr(err error) bool { return errors.Is(err, syscall.ELOOP) }
