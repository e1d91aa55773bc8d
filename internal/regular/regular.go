// Package regular opens the files a config names (the config itself, an
// icon, a file() of an example, a content item's file, a command's
// program) so that anything but a regular file is refused without being
// waited on: a FIFO would hold open() until a writer comes, and read()
// until it writes, a device may never end, and a directory is not text.
//
// The file is looked at with stat first, and so not opened at all when it
// is not regular; the open itself does not wait (O_NONBLOCK on Unix), and
// the open file is looked at again, should the path have been swapped for
// a FIFO in between.
//
// On Windows the file is opened shared for deletion too, as os.Root opens
// files: an editor that saves by renaming a new file over the old one can
// do so while toolhost reads it. ReadDir lists a config's directory so
// too.
package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// NotRegularError is the error for a path that names something other than
// a regular file: a FIFO, a device, a socket, a directory.
type NotRegularError struct {
	// Path is the path as given.
	Path string
	// Mode is the file's type, from stat.
	Mode fs.FileMode
}

// Error says what the path names, and that a regular file is wanted.
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, Kind(e.Mode))
}

// Kind names the type of a file that is not regular, with its article, as
// in "a FIFO (named pipe)".
func Kind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// Open opens the file at path for reading, following symbolic links. A
// path that names anything but a regular file gives a *NotRegularError,
// without having waited on it; other errors are those of os.Open.
func Open(path string) (*os.File, error) {
	return openFile(path, os.O_RDONLY)
}

// OpenWrite opens the file at path for writing and truncates it, as
// os.OpenFile with os.O_WRONLY|os.O_TRUNC does, when it is a regular file:
// anything else gives a *NotRegularError, without having waited on it (a
// FIFO for a reader).
func OpenWrite(path string) (*os.File, error) {
	return openFile(path, os.O_WRONLY|os.O_TRUNC)
}

// openFile opens the regular file at path with flag.
func openFile(path string, flag int) (*os.File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	f, err := openPath(path, flag)
	if err != nil {
		return nil, err
	}
	return checked(f, path)
}

// OpenIn opens the file name inside root for reading, as Open does: the
// path in a *NotRegularError is name.
func OpenIn(root *os.Root, name string) (*os.File, error) {
	info, err := root.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Path: name, Mode: info.Mode()}
	}
	f, err := root.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	return checked(f, name)
}

// OpenPipe opens the pipe at path for reading, without waiting for a
// writer: for a descriptor the process already holds, which /dev/fd/63 (a
// shell's <(...)) and /dev/stdin name. A path that is not a pipe gives a
// *NotRegularError when it is not a regular file either.
func OpenPipe(path string) (*os.File, error) {
	f, err := openPath(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err == nil && info.Mode()&fs.ModeNamedPipe != 0 {
		return f, nil
	}
	return checked(f, path)
}

// ReadDir lists the directory at path, sorted by name, as os.ReadDir
// does: for a config named by its directory. On Windows the directory is
// opened shared for deletion, as the files are.
func ReadDir(path string) ([]fs.DirEntry, error) {
	f, err := openDir(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// checked returns f when it is a regular file, and closes it otherwise.
func checked(f *os.File, path string) (*os.File, error) {
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	return f, nil
}

// ReadFile reads the regular file at path, opened as Open opens it, or
// returns tooLarge once it has read more than limit bytes (a file that
// grows while it is read included).
func ReadFile(path string, limit int64, tooLarge error) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadUpTo(f, limit, tooLarge)
}

// ReadUpTo reads f to its end, or returns tooLarge once it has read more
// than limit bytes. A regular file's size is known, and read in one, as
// os.ReadFile reads it.
func ReadUpTo(f *os.File, limit int64, tooLarge error) ([]byte, error) {
	size := int64(0)
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		size = min(info.Size(), limit)
	}
	data := make([]byte, 0, size+512)
	r := io.LimitReader(f, limit+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if int64(len(data)) > limit {
		return nil, tooLarge
	}
	return data, nil
}
