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
	// OpenPipe opens a regular file too.
	all := append(opens(root), opener{"OpenPipe", OpenPipe})
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
		for _, op := range all {
			t.Run(save.name+"/"+op.name, func(t *testing.T) {
				path := filepath.Join(dir, op.name+".hcl")
				if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
				name := path
				if op.name == "OpenIn" {
					name = filepath.Base(path)
				}
				f, err := op.open(name)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := save.save(t, path); err != nil {
					t.Fatalf("saving over the open file: %v", err)
				}
				if op.name != "OpenWrite" {
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

// TestDeleteListedDirectory holds a directory open as ReadDir opens it
// and deletes it, as a config's directory may be deleted while it is
// listed: Windows allows it only when every open handle shares the
// directory for deletion.
func TestDeleteListedDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "conf")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := openDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadDir(-1); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatalf("deleting the listed directory: %v", err)
	}
}
