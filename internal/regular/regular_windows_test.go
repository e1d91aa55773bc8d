package regular

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestReplaceOpenFile holds a file open through each of the package's
// opens while an editor saves over it, by renaming a new file over it or
// by deleting it: Windows allows either only when every open handle
// shares the file for deletion. The open file still reads what it held,
// and once it is closed the path names the new file, or nothing.
func TestReplaceOpenFile(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	opens := []struct {
		name  string
		open  func(path string) (*os.File, error)
		write bool
	}{
		{"Open", Open, false},
		{"OpenPipe", OpenPipe, false},
		{"OpenIn", func(path string) (*os.File, error) { return OpenIn(root, filepath.Base(path)) }, false},
		{"OpenWrite", OpenWrite, true},
	}
	saves := []struct {
		name string
		save func(t *testing.T, path string) error
		want string // what path reads then, "" for no file
	}{
		{"rename over", func(t *testing.T, path string) error {
			if testconfig.UnderWine() {
				t.Skip("wine 8 refuses to rename over a file any handle holds open, whatever its sharing (server/fd.c, set_fd_name)")
			}
			if err := os.WriteFile(path+".tmp", []byte("new"), 0o644); err != nil {
				t.Fatal(err)
			}
			return os.Rename(path+".tmp", path)
		}, "new"},
		{"delete", func(t *testing.T, path string) error { return os.Remove(path) }, ""},
	}
	for _, save := range saves {
		for _, op := range opens {
			t.Run(save.name+"/"+op.name, func(t *testing.T) {
				path := filepath.Join(dir, op.name+".hcl")
				if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
				f, err := op.open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := save.save(t, path); err != nil {
					t.Fatalf("saving over the open file: %v", err)
				}
				if !op.write {
					if b, err := io.ReadAll(f); err != nil || string(b) != "old" {
						t.Errorf("the open file read %q, %v; want \"old\"", b, err)
					}
				}
				f.Close()
				b, err := os.ReadFile(path)
				if save.want == "" && !errors.Is(err, fs.ErrNotExist) || save.want != "" && (err != nil || string(b) != save.want) {
					t.Errorf("the path then reads %q, %v; want %q", b, err, save.want)
				}
			})
		}
	}
}
