//go:build unix

package setup

import (
	"io/fs"
	"os"
	"syscall"
)

// matchOwner gives path the owner and group of like, when setup runs as
// root (sudo, which keeps HOME on macOS) and like belongs to someone else:
// the editor, run by its user, must still be able to read and write its
// file. Other users cannot give files away, and need not.
func matchOwner(path string, like fs.FileInfo) error {
	if like == nil || os.Geteuid() != 0 {
		return nil
	}
	st, ok := like.Sys().(*syscall.Stat_t)
	if !ok || (st.Uid == 0 && st.Gid == 0) {
		return nil
	}
	return os.Lchown(path, int(st.Uid), int(st.Gid))
}

// rename renames from over to.
func rename(from, to string) error { return os.Rename(from, to) }
