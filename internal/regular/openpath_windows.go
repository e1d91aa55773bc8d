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
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(name, access,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, disposition, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
