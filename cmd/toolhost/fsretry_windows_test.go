package main

import (
	"errors"

	"golang.org/x/sys/windows"
)

// fileBusy reports whether err says a file or directory is in use for a
// moment: access denied or a sharing violation on a rename, a directory
// not empty yet because a deleted file in it is still open.
func fileBusy(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_DIR_NOT_EMPTY)
}
