//go:build unix

package host

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWatchLinkToDirMadeInSteps: a release's "current" link is re-pointed
// at a directory not made yet; the directory is then made just before the
// watcher adds its parent, and its tools.hcl written just before the
// watcher adds the directory, so that neither makes an event. Each directory newly watched gets its look again, not
// only the first of a chain: the config was left unloaded, with the link's
// error, until the next save.
func TestWatchLinkToDirMadeInSteps(t *testing.T) {
	root := t.TempDir()
	tool := func(name string) []byte {
		return []byte("tool \"" + name + "\" {\n  description = \"A tool.\"\n  template { text = \"x\" }\n}\n")
	}
	releases := filepath.Join(root, "releases")
	one, two := filepath.Join(releases, "1"), filepath.Join(releases, "2")
	if err := os.MkdirAll(one, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(one, "tools.hcl"), tool("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	current := filepath.Join(root, "current")
	if err := os.Symlink(one, current); err != nil {
		t.Fatal(err)
	}
	var onceReleases, onceTwo sync.Once
	srv, results := watchConfig(t, filepath.Join(current, "tools.hcl"), func(r *Reloader) {
		r.beforeAdd = func(dir string) {
			switch {
			case sameDir(dir, releases):
				// releases/2 is made just before releases is watched for
				// it: no event, and the look again finds it empty.
				onceReleases.Do(func() {
					if err := os.Mkdir(two, 0o755); err != nil {
						t.Error(err)
					}
				})
			case sameDir(dir, two):
				// Its tools.hcl is written just before releases/2 is
				// watched: no event either.
				onceTwo.Do(func() {
					if err := os.WriteFile(filepath.Join(two, "tools.hcl"), tool("beta"), 0o644); err != nil {
						t.Error(err)
					}
				})
			}
		}
	})
	// Re-point the link at releases/2, which is not there yet: the reload
	// fails, and the watcher watches releases for it.
	tmp := current + ".new"
	if err := os.Symlink(two, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, current); err != nil {
		t.Fatal(err)
	}
	awaitTool(t, srv, results, "beta", "releases/2/tools.hcl")
}
