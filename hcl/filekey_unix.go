//go:build unix

package hcl

import (
	"io/fs"
	"syscall"
)

// fileKey is a file's identity: two paths with the same key are the same
// file (through a symbolic link, or a hard link).
type fileKey struct{ dev, ino uint64 }

// fileKeyOf returns the identity of the file at path, which info
// describes, from Stat (which follows links); false when info is nil or
// has none, or reports inode 0, as some FUSE and network file systems do
// for every file.
func fileKeyOf(_ string, info fs.FileInfo) (fileKey, bool) {
	if info == nil {
		return fileKey{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Ino == 0 {
		return fileKey{}, false
	}
	return fileKey{uint64(st.Dev), uint64(st.Ino)}, true
}

// HardLinks returns how many names (hard links) the file at path, which
// info (from Stat) describes, has; 1 when info does not say.
func HardLinks(_ string, info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
