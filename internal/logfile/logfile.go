// Package logfile writes toolhost's log to a file the operator names
// (--log-file): it appends to the file, creates its directory, opens the
// path again when a rotation tool has moved or removed the file, and
// rotates the file itself past a size cap, keeping one older file (.1).
package logfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolhost/toolhost/internal/regular"
)

// DefaultMaxSize is the size past which a log file is rotated: 10 MiB.
const DefaultMaxSize = 10 << 20

// File is a log file that stays writable across rotations. Its Write is
// safe for concurrent use.
//
// Before each write it looks at the path: when the path names another
// file than the one open (a rotation tool renamed it away and perhaps
// made a new one) or no file at all (it was removed), the path is opened
// again, so that the lines go where the operator looks. A file truncated
// in place (copytruncate) needs nothing: the file is opened to append, so
// the next line goes at its new end. When the file would grow past the
// size cap, it is renamed to PATH.1 (replacing an older .1) and a new file
// is begun: the log takes at most twice the cap on disk, whatever a
// caller sends.
type File struct {
	path string
	max  int64

	mu   sync.Mutex
	f    *os.File
	info os.FileInfo // of f, to tell whether the path still names it
}

// Open opens path to append log lines, creating it (mode 0600: logs may
// hold the values a call sent) and its missing directories (mode 0700).
// maxSize is the rotation cap in bytes; 0 or less means DefaultMaxSize.
func Open(path string, maxSize int64) (*File, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	l := &File{path: abs, max: maxSize}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

// Path returns the absolute path of the file.
func (l *File) Path() string { return l.path }

// open opens l.path, making its directory when it is missing.
func (l *File) open() error {
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return fmt.Errorf("cannot create the log file's directory: %w", err)
	}
	// Looked at before it is opened: opening a FIFO to write waits for
	// a reader, which would hold toolhost up before it serves.
	if info, err := os.Stat(l.path); err == nil && info.IsDir() {
		return fmt.Errorf("cannot log to %s: it is a directory; give the path of a file in it, such as %s", l.path, filepath.Join(l.path, "toolhost.log"))
	} else if err == nil && !info.Mode().IsRegular() {
		return fmt.Errorf("cannot log to %s: it is %s, not a regular file; give the path of a regular file", l.path, regular.Kind(info.Mode()))
	}
	f, err := openAppend(l.path)
	if err != nil {
		return fmt.Errorf("cannot open the log file: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("cannot open the log file: %w", err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("cannot log to %s: it is not a regular file", l.path)
	}
	l.f, l.info = f, info
	return nil
}

// Write appends p, a whole log line or lines, to the file, after opening
// the path again if it names another file, and rotating the file if p
// would take it past the cap. A write that fails part way (a full disk)
// leaves nothing of p in the file.
func (l *File) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var size int64
	st, err := os.Stat(l.path)
	switch {
	case l.f == nil || err != nil || !os.SameFile(st, l.info):
		// Moved, removed or replaced: open what the path names now.
		l.closeFile()
		if err := l.open(); err != nil {
			return 0, err
		}
	default:
		size = st.Size()
	}
	if size > 0 && size+int64(len(p)) > l.max {
		if err := l.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	if err != nil && n > 0 {
		// A disk that fills up mid-line keeps part of it; cut it off,
		// so that the next line written does not run on from it and
		// both be lost to a reader that reads a line at a time.
		if info, serr := l.f.Stat(); serr == nil && info.Size() >= int64(n) {
			_ = l.f.Truncate(info.Size() - int64(n))
		}
		n = 0
	}
	return n, err
}

// rotate renames the file to PATH.1 and opens a new one. When the rename
// fails (on Windows, another program may hold PATH.1 open without
// sharing), the file goes on growing and the next write tries again.
func (l *File) rotate() error {
	l.closeFile()
	renameErr := os.Rename(l.path, l.path+".1")
	if err := l.open(); err != nil {
		return err
	}
	if renameErr != nil {
		return fmt.Errorf("cannot rotate the log file past %d bytes: %w", l.max, renameErr)
	}
	return nil
}

func (l *File) closeFile() {
	if l.f != nil {
		_ = l.f.Close()
		l.f, l.info = nil, nil
	}
}

// Close closes the file. Later writes open it again.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f, l.info = nil, nil
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
