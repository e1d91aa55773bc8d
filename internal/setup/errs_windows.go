package setup

import (
	"errors"

	"golang.org/x/sys/windows"
)

// isDirErr: Windows refuses to open a folder as a file with "access
// denied", which fixFor's permission case already covers.
func isDirErr(error) bool { return false }

// notDirErr reports whether err says a file stands where a folder should.
func notDirErr(err error) bool {
	return errors.Is(err, windows.ERROR_PATH_NOT_FOUND) || errors.Is(err, windows.ERROR_DIRECTORY)
}

// isLoopErr reports whether err says symbolic links lead in a circle.
func isLoopErr(err error) bool { return errors.Is(err, windows.ERROR_CANT_RESOLVE_FILENAME) }
