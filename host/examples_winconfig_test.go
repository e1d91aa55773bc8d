package host

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"

	thcl "github.com/toolhost/toolhost/hcl"
)

// TestWindowsExamplesConfig loads examples/windows/tools.hcl on every
// system and runs its examples: its only diagnostics may be warnings that
// a Windows program (powershell.exe, where.exe, tasklist.exe) is not
// installed, as on Linux.
func TestWindowsExamplesConfig(t *testing.T) {
	reg, diags := Load([]string{filepath.Join("..", "examples", "windows", "tools.hcl")}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
	for _, d := range diags {
		if d.Severity != hcl.DiagWarning || d.Summary != "Program not found" {
			t.Errorf("load: %s", thcl.FormatDiagnostics(hcl.Diagnostics{d}))
		}
	}
	if reg == nil {
		t.Fatal("load: no registry")
	}
	defer reg.Close()
	rep := CheckExamples(context.Background(), reg)
	if rep.Failed > 0 || rep.Run != 3 {
		t.Fatalf("run %d, failed %d; want 3 run:\n%s", rep.Run, rep.Failed, thcl.FormatDiagnostics(rep.Diagnostics))
	}
}
