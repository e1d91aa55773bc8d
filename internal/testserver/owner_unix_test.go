//go:build !windows

package testserver_test

import (
	"os"
	"syscall"
)

// fileOwner returns the uid of the file fi describes.
func fileOwner(fi os.FileInfo) uint32 { return fi.Sys().(*syscall.Stat_t).Uid }
