//go:build !windows

package regular

import "os"

// openPath opens the file at path with flag (os.O_RDONLY, or
// os.O_WRONLY|os.O_TRUNC) and openFlags, as os.OpenFile does.
func openPath(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag|openFlags, 0)
}

// openDir opens the directory at path for listing, as os.Open does.
func openDir(path string) (*os.File, error) { return os.Open(path) }
