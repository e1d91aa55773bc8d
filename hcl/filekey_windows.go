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
	d, ok := handleInfo(path)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{d.VolumeSerialNumber, uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)}, true
}

// HardLinks returns how many names (hard links) the file at path has,
// which Windows gives only from an open handle; 1 when it cannot be
// opened.
func HardLinks(path string, _ fs.FileInfo) uint64 {
	d, ok := handleInfo(path)
	if !ok || d.NumberOfLinks == 0 {
		return 1
	}
	return uint64(d.NumberOfLinks)
}

// handleInfo opens the file at path for its attributes only (no access
// asked, so it opens whatever another program holds the file with) and
// returns what GetFileInformationByHandle says of it.
func handleInfo(path string) (windows.ByHandleFileInformation, bool) {
	var d windows.ByHandleFileInformation
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return d, false
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return d, false
	}
	defer windows.CloseHandle(h)
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return d, false
	}
	return d, true
}
