package testpg

import "os"

// fileOwner returns 1 on Windows, which has no uid.
func fileOwner(os.FileInfo) uint32 { return 1 }
