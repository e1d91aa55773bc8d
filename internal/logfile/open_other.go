//go:build !windows

package logfile

import "os"

// openAppend opens path to append, creating it with mode 0600.
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}
