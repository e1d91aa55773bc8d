//go:build windows

package hcl

import (
	"io/fs"

	"golang.org/x/sys/windows"
)

// fileKey is a file's identity: two paths with the same key are the same
// file (through a symbolic link, a junction or a hard link).
type fileKey struct {
	volume uint32
	index  uint64
}

// fileKeyOf returns the identity of the file at path, which info (from
// Stat) describes: its volume serial number and file index, which Windows
// gives only from an open handle. False when info is nil or the file
// cannot be opened.
func fileKeyOf(path string, info fs.FileInfo) (fileKey, bool) {
	if info == nil {
		return fileKey{}, false
	}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return fileKey{}, false
	}
	// No access asked: the handle is for its attributes only, and opens
	// whatever another program holds the file with.
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return fileKey{}, false
	}
	defer windows.CloseHandle(h)
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return fileKey{}, false
	}
	return fileKey{d.VolumeSerialNumber, uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)}, true
}

// HardLinks returns 1: the number of a file's names is not in what Stat
// gives on Windows.
func HardLinks(fs.FileInfo) uint64 { return 1 }
