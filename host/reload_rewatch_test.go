package host

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fsnotify/fsnotify"

	thcl "github.com/toolhost/toolhost/hcl"
)

// TestRewatchDropsWatchesNotAskedFor: a watch the watcher holds under a
// name the config does not need (on Windows, the watch of the config's
// folder once it is renamed away, which follows it to its new name) is
// dropped, and the config's folder, replaced under its path, is watched
// anew, whether the watcher still lists it or not.
func TestRewatchDropsWatchesNotAskedFor(t *testing.T) {
	root := t.TempDir()
	config := filepath.Join(root, "proj", "tools.hcl")
	const text = `tool "hello" {
  description = "greets"
  template { text = "hello" }
}
`
	writeFile(t, config, text)
	reg, diags := Load([]string{config}, nil)
	if diags.HasErrors() {
		t.Fatal(thcl.FormatDiagnostics(diags))
	}
	srv := NewServer(reg, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { srv.Registry().Retire() })
	real := func(p string) string {
		t.Helper()
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	proj, top := real(filepath.Join(root, "proj")), real(root)
	r := &Reloader{Paths: []string{config}, Server: srv, Logger: slog.New(slog.DiscardHandler), Diagnostics: io.Discard}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	added := map[string]os.FileInfo{}
	if _, _, err := r.rewatch(w, added); err != nil {
		t.Fatal(err)
	}
	list := func() []string {
		l := w.WatchList()
		slices.Sort(l)
		return l
	}
	if got := list(); !slices.Contains(got, proj) || !slices.Contains(got, top) {
		t.Fatalf("watching %v, want %s and %s", got, proj, top)
	}

	// The folder replaced by a rename, and a watch under another name.
	before, err := os.Stat(proj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(proj, proj+".old"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, config, text)
	after, err := os.Stat(proj)
	if err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(top, "stray")
	if err := os.Mkdir(stray, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(stray); err != nil {
		t.Fatal(err)
	}
	_, fresh, err := r.rewatch(w, added)
	if err != nil {
		t.Fatal(err)
	}
	got := list()
	if slices.Contains(got, stray) {
		t.Errorf("still watching %s, which the config does not need: %v", stray, got)
	}
	if !slices.Contains(got, proj) {
		t.Errorf("watching %v, want %s", got, proj)
	}
	// Where the system tells the two folders apart (not wine 8, whose
	// file ids follow the path), the new one is watched anew at once.
	if !os.SameFile(before, after) && (!fresh || !os.SameFile(added[pathKey(proj)], after)) {
		t.Errorf("the new %s is not watched anew (fresh %v)", proj, fresh)
	}
}
