//go:build unix

package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyPlaceErrors: what stands in the way of the editor's file is
// named with what to do about it.
func TestApplyPlaceErrors(t *testing.T) {
	e := editor(t, "cursor")
	for _, tc := range []struct {
		name string
		make func(dir string) string // makes the obstacle, returns the editor file's path
		fix  string
	}{
		{"a folder where the file goes", func(dir string) string {
			p := filepath.Join(dir, "mcp.json")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, "a folder stands where the editor keeps its settings file"},
		{"a file where its folder goes", func(dir string) string {
			if err := os.WriteFile(filepath.Join(dir, ".cursor"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, ".cursor", "mcp.json")
		}, "a file stands where a folder on the way"},
		{"a link that leads to itself", func(dir string) string {
			p := filepath.Join(dir, "mcp.json")
			if err := os.Symlink("loop", filepath.Join(dir, "loop")); err != nil {
				t.Skipf("cannot make a symbolic link here: %v", err)
			}
			if err := os.Symlink("loop", p); err != nil {
				t.Fatal(err)
			}
			return p
		}, "a symbolic link that leads back to itself"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.make(t.TempDir())
			_, err := Apply(path, e, DefaultName, unixServer(e), false)
			if err == nil || !strings.Contains(err.Error(), tc.fix) {
				t.Fatalf("got %v, want the fix %q", err, tc.fix)
			}
		})
	}
}
