package host

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/hclfmt"
)

// galleryWarnings are the warnings a recipe may load with wherever the
// tests run: the program it runs is not installed (kubectl, Windows
// programs on Linux), or the variable that holds its credential is not
// set. Any other warning is a recipe to fix.
var galleryWarnings = []string{"Program not found", "Environment variable not set"}

// TestGalleryRecipes loads every recipe of the gallery, each
// examples/*/tools.hcl, as validate does (no environment variable set),
// and runs its examples offline; a recipe has a README.md beside it and
// is formatted as toolhost fmt formats. A new recipe is covered by being
// there.
func TestGalleryRecipes(t *testing.T) {
	configs, err := filepath.Glob(filepath.Join("..", "examples", "*", "tools.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(configs) < 7 {
		t.Fatalf("found %d recipes (examples/*/tools.hcl); the gallery has at least 7", len(configs))
	}
	for _, cfg := range configs {
		dir := filepath.Dir(cfg)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
				t.Errorf("%s has no README.md: a recipe says in a few lines what it does, how to run it, what it needs installed and which variables it reads", dir)
			}
			src, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := hclfmt.Format(src); string(got) != string(src) {
				t.Errorf("%s is not formatted: run toolhost fmt %s", cfg, cfg)
			}
			reg, diags := Load([]string{cfg}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
			for _, d := range diags {
				if d.Severity == hcl.DiagError || !slices.Contains(galleryWarnings, d.Summary) {
					t.Errorf("load: %s", thcl.FormatDiagnostics(hcl.Diagnostics{d}))
				}
			}
			if reg == nil {
				t.Fatal("load: no registry")
			}
			defer reg.Close()
			rep := CheckExamples(context.Background(), reg)
			if rep.Failed > 0 {
				t.Errorf("run %d examples, %d failed:\n%s", rep.Run, rep.Failed, thcl.FormatDiagnostics(rep.Diagnostics))
			}
			if rep.Run == 0 && len(reg.Config.Tools) > 0 {
				t.Logf("%s: no example runs offline; its tools are tested elsewhere or not at all", cfg)
			}
		})
	}
}
