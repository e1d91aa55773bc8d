//go:build unix

package host

import (
	"context"
	"path/filepath"
	"testing"

	thcl "github.com/toolhost/toolhost/hcl"
)

// The example configs below run unix programs (printf, sh): on Windows
// they load with a warning that the program is not found, and their
// examples cannot pass.

// TestExamplesConfigExamplesPass runs the examples of examples/tools.hcl.
func TestExamplesConfigExamplesPass(t *testing.T) {
	reg, diags := Load([]string{filepath.Join("..", "examples", "tools.hcl")}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
	if len(diags) > 0 {
		t.Fatalf("load: %s", thcl.FormatDiagnostics(diags))
	}
	defer reg.Close()
	rep := CheckExamples(context.Background(), reg)
	if rep.Failed > 0 || rep.Run < 4 {
		t.Fatalf("run %d, failed %d:\n%s", rep.Run, rep.Failed, thcl.FormatDiagnostics(rep.Diagnostics))
	}
}

// TestValidFixturesExamplesPass runs the examples of the hcl package's
// valid fixtures, which must load with no diagnostic and pass.
func TestValidFixturesExamplesPass(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "hcl", "testdata", "valid", "*.hcl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	run := 0
	for _, f := range files {
		reg, diags := Load([]string{f}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
		if len(diags) > 0 {
			t.Fatalf("%s: %s", f, thcl.FormatDiagnostics(diags))
		}
		rep := CheckExamples(context.Background(), reg)
		reg.Close()
		if rep.Failed > 0 {
			t.Errorf("%s:\n%s", f, thcl.FormatDiagnostics(rep.Diagnostics))
		}
		run += rep.Run
	}
	if run == 0 {
		t.Error("the valid fixtures have no examples")
	}
}
