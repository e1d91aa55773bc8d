//go:build unix

package hcl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadFileUpToPipe reads a named pipe, whose size is not known before
// it is read, as a shell's <(...) gives: up to the limit, and one byte
// over.
func TestReadFileUpToPipe(t *testing.T) {
	tooLarge := errors.New("too large")
	dir := t.TempDir()
	const limit = 4096
	for _, size := range []int{limit, limit + 1} {
		fifo := filepath.Join(dir, "fifo")
		_ = os.Remove(fifo)
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				// The reader may stop early; a write into a closed pipe
				// fails, which is the reader's business.
				_, _ = w.Write([]byte(strings.Repeat("y", size)))
				err = w.Close()
			}
			done <- err
		}()
		got, err := readFileUpTo(fifo, limit, tooLarge)
		switch {
		case size <= limit && (err != nil || len(got) != size):
			t.Errorf("pipe of %d bytes: got %d, %v", size, len(got), err)
		case size > limit && err != tooLarge:
			t.Errorf("pipe of %d bytes: got %d, %v; want the too-large error", size, len(got), err)
		}
		<-done
	}
}
