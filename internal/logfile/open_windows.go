package logfile

import (
	"os"
	"syscall"
)

// openAppend opens path to append, creating it. Unlike os.OpenFile it
// shares the file for deletion as well as for reading and writing, so
// that a rotation tool (or another toolhost) can rename or remove the
// file while it is open; Write then opens the path again. The file's
// permissions are those its directory passes on (a user's profile
// directories are the user's own).
func openAppend(path string) (*os.File, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	const access = syscall.FILE_APPEND_DATA | syscall.FILE_WRITE_ATTRIBUTES | fileReadAttributes |
		syscall.STANDARD_RIGHTS_WRITE | syscall.SYNCHRONIZE
	const share = syscall.FILE_SHARE_READ | syscall.FILE_SHARE_WRITE | syscall.FILE_SHARE_DELETE
	h, err := syscall.CreateFile(p, access, share, nil, syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// fileReadAttributes is FILE_READ_ATTRIBUTES, which syscall does not name:
// Write compares the open file with what the path names.
const fileReadAttributes = 0x80
