//go:build unix

package cli

import (
	"io/fs"
	"syscall"
)

// hardLinks returns how many names (hard links) the file info describes
// has; 1 when info does not say.
func hardLinks(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
