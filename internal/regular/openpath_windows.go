//go:build windows

package regular

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// openPath opens the file at path with flag (os.O_RDONLY, or
// os.O_WRONLY|os.O_TRUNC) as os.OpenFile does, but shares it for deletion
// too: os.OpenFile leaves out FILE_SHARE_DELETE, so an editor that saves
// by renaming a new file over the one toolhost is reading would be
// refused ("Access is denied") for as long as toolhost holds it open.
func openPath(path string, flag int) (*os.File, error) {
	access, disposition := uint32(windows.GENERIC_READ), uint32(windows.OPEN_EXISTING)
	if flag&os.O_WRONLY != 0 {
		access = windows.GENERIC_WRITE
	}
	if flag&os.O_TRUNC != 0 {
		disposition = windows.TRUNCATE_EXISTING
	}
	return createFile(path, access, disposition, windows.FILE_ATTRIBUTE_NORMAL)
}

// openDir opens the directory at path for listing, shared for deletion
// too (os.Open's is not), so that the directory can be deleted or renamed
// while it is listed.
func openDir(path string) (*os.File, error) {
	return createFile(path, windows.GENERIC_READ, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS)
}

// createFile opens path with CreateFile, shared for reading, writing and
// deletion.
func createFile(path string, access, disposition, attrs uint32) (*os.File, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(name, access,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, disposition, attrs, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
