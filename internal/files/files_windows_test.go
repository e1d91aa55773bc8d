package files

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestReadWindowsDevices: a declared file that is a device or a directory
// on Windows is refused with ErrNotFound's message, without blocking.
func TestReadWindowsDevices(t *testing.T) {
	root, _ := nameTree(t)
	for _, path := range []string{"NUL", `\\.\NUL`, "CON", filepath.Join(root, "a"), filepath.Join(root, "nul.txt")} {
		t.Run(path, func(t *testing.T) {
			fc, err := readWithin(t, func() (*Content, error) { return Read(path, 0) })
			if err == nil {
				t.Fatalf("Read(%q) = %q, want an error", path, fc.Data)
			}
			if !errors.Is(err, ErrNotFound) || err.Error() != ErrNotFound.Error() {
				t.Errorf("Read(%q): error %q, want exactly %q", path, err, ErrNotFound)
			}
		})
	}
}
