package exec

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExecBatchFoundByPathExt: a program name that the PATHEXT lookup
// finds as a batch file (deploy as deploy.cmd) may take no parameter: the
// load refuses it, naming the file found; with fixed arguments, or as a
// program found as an .exe, it loads.
func TestExecBatchFoundByPathExt(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	for _, name := range []string{"deploy.cmd", `sub\run.BAT`, "tool.exe"} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("@echo off\r\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := defaultFixture()
	f.baseDir = base
	path := "\nenv = { PATH = " + strconv.Quote(base) + " }"
	scriptAccepted(t, f, []string{`command = ["deploy", "--all"]` + path, `command = ["tool", param.text]` + path})
	tests := []struct{ name, body, found string }{
		{"on the PATH", `command = ["deploy", param.text]` + path, filepath.Join(base, "deploy.cmd")},
		{"relative to the config file", `command = ["sub\\run", "--name", "${param.text}"]`, filepath.Join(base, "sub", "run.BAT")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, errs := scriptErrors(t, f, tt.body)
			if len(errs) != 1 || errs[0].Summary != "Parameter passed to a batch file" {
				t.Fatalf("diagnostics = %v, want one Parameter passed to a batch file", errs)
			}
			// PATHEXT gives the extension in its own case.
			if !strings.Contains(strings.ToLower(errs[0].Detail), strings.ToLower(strconv.Quote(tt.found))+" is found on this machine") {
				t.Errorf("detail = %q, want it to name %s", errs[0].Detail, tt.found)
			}
		})
	}
}
