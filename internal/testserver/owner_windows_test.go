package testserver_test

import "os"

// fileOwner returns 1 on Windows, which has no uid (and runs no server).
func fileOwner(os.FileInfo) uint32 { return 1 }
