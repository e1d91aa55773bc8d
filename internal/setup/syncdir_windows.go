package setup

// syncDir does nothing on Windows, which cannot open a directory to flush
// it: NTFS journals the rename itself.
func syncDir(string) error { return nil }
