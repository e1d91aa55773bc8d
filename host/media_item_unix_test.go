//go:build unix

package host

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// specialFileSwaps are the cases of TestMediaItemFileSwapped that are
// unix's: files that are neither regular files nor directories, and a
// folder on the way made a file, which unix calls "not a directory" and
// Windows a path not found.
var specialFileSwaps = []fileSwap{
	{"FIFO", func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}, "the file is a FIFO (named pipe), not a regular file"},
	{"socket", func(t *testing.T, p string) {
		l, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	}, "the file is a socket, not a regular file"},
	{"folder made a file", func(t *testing.T, p string) {
		// The second file finds the folder a file already.
		dir := filepath.Dir(p)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}, "the file cannot be opened: not a directory"},
}
