//go:build unix

package logfile

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFIFORefused: a FIFO at the path is refused at once, with what it
// is, instead of holding Open up until some reader opens it.
func TestFIFORefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	l, err := Open(path, 0)
	if err == nil {
		l.Close()
		t.Fatal("Open(FIFO) succeeded, want it refused")
	}
	if !strings.Contains(err.Error(), "a FIFO (named pipe), not a regular file") || !strings.Contains(err.Error(), path) {
		t.Errorf("Open(FIFO) = %v, want an error naming the path and saying it is a FIFO", err)
	}
}
