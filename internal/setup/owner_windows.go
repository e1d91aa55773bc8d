package setup

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// matchOwner does nothing on Windows: a file made in a user's profile
// inherits its permissions from the folder.
func matchOwner(string, fs.FileInfo) error { return nil }

// rename renames from over to, trying again for a moment while another
// program (an antivirus scan, the editor reading its file) holds to open:
// Windows refuses a rename over an open file that was not opened for
// sharing its deletion.
func rename(from, to string) error {
	var err error
	for i := 0; i < 20; i++ {
		if err = os.Rename(from, to); err == nil || !(errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}
