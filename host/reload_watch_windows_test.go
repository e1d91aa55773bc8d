package host

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// TestWatchSetOneSpellingPerDir: a config whose folder is missing, given
// in another case than the disk's, reaches its parent both as written and
// by its real name; the parent is watched once, so that rewatch does not
// trade one watch of it for the other on every reload.
func TestWatchSetOneSpellingPerDir(t *testing.T) {
	root := t.TempDir()
	have := filepath.Join(root, "have", "tools.hcl")
	writeFile(t, have, "tool \"hello\" {\n  description = \"greets\"\n  template { text = \"hello\" }\n}\n")
	reg, diags := Load([]string{have}, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	srv := NewServer(reg, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { srv.Registry().Retire() })
	missing := filepath.Join(strings.ToUpper(root), "PROJ", "TOOLS.HCL")
	r := &Reloader{Paths: []string{missing}, Server: srv, Logger: slog.New(slog.DiscardHandler), Diagnostics: io.Discard}
	dirs, _, _ := r.watchSet()
	seen := map[string]string{}
	for _, d := range dirs {
		if prev, ok := seen[pathKey(d)]; ok {
			t.Errorf("%s watched twice: as %s and as %s", d, prev, d)
		}
		seen[pathKey(d)] = d
	}
	if _, ok := seen[pathKey(root)]; !ok {
		t.Errorf("watching %v, want the missing folder's parent %s", dirs, root)
	}
}
