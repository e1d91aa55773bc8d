//go:build !windows

package setup

import "os"

// syncDir makes a rename in dir durable: the directory entry is written
// out as the file's content was.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
