package regular

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// opener is one of the package's opens of a file.
type opener struct {
	name string
	open func(name string) (*os.File, error)
}

// opens lists Open, OpenIn and OpenWrite: OpenIn opens name inside root,
// the others take name as a path.
func opens(root *os.Root) []opener {
	return []opener{
		{"Open", Open},
		{"OpenIn", func(name string) (*os.File, error) { return OpenIn(root, name) }},
		{"OpenWrite", OpenWrite},
	}
}

// TestReadDir lists a directory as os.ReadDir does: every entry, sorted
// by name; a missing directory is an error that says so.
func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.hcl", "a.hcl", "c"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path    string
		want    []string
		missing bool
	}{
		{dir, []string{"a.hcl", "b.hcl", "c", "sub/"}, false},
		{filepath.Join(dir, "sub"), nil, false},
		{filepath.Join(dir, "none"), nil, true},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			entries, err := ReadDir(tc.path)
			if tc.missing {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("err = %v, want one for a missing directory", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				name := e.Name()
				if e.IsDir() {
					name += "/"
				}
				got = append(got, name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ReadDir = %q, want %q", got, tc.want)
			}
		})
	}
}
