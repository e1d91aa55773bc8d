//go:build unix

package host

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// TestResourceSymlinkWatched: a resource whose file is a symlink to a
// file elsewhere (dotfiles, a release's "current") is watched where the
// link is and where it leads: an edit of the target is told, and so is
// the link re-pointed (a new link renamed over it), after which the new
// target's directory is watched and its edits told.
func TestResourceSymlinkWatched(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	at := func(name string) string { return filepath.Join(dir, filepath.FromSlash(name)) }
	for _, name := range []string{"v1/q4.md", "v2/q4.md", "reports/beacon.md"} {
		writeFile(t, at(name), name)
	}
	if err := os.Symlink(at("v1/q4.md"), at("reports/q4.md")); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`
resource "q4" {
  uri  = "file:///reports/q4.md"
  file = "%[1]s/reports/q4.md"
}
resource "beacon" {
  uri  = "zz://beacon"
  file = "%[1]s/reports/beacon.md"
}
`, dir)
	srv, c := stdioUpdates(t, src)
	watchServer(t, srv, slog.New(slog.DiscardHandler))
	waitWatches(t, srv, dir, at("reports"), at("v1"))
	c.subscribe(t, "file:///reports/q4.md", "zz://beacon")
	const q4 = "file:///reports/q4.md"
	runUpdateSteps(t, c, at("reports/beacon.md"), []updateStep{
		{"the target edited", func(t *testing.T) { appendTo(t, at("v1/q4.md"), "x") }, []string{q4}, false},
		{"the link re-pointed", func(t *testing.T) {
			if err := os.Symlink(at("v2/q4.md"), at("reports/.q4.md.new")); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(at("reports/.q4.md.new"), at("reports/q4.md")); err != nil {
				t.Fatal(err)
			}
		}, []string{q4}, false},
		{"the new target edited", func(t *testing.T) {
			waitWatches(t, srv, dir, at("reports"), at("v2"))
			appendTo(t, at("v2/q4.md"), "x")
		}, []string{q4}, false},
		{"the old target edited", func(t *testing.T) { appendTo(t, at("v1/q4.md"), "x") }, nil, false},
	})
}
