//go:build unix

package hcl

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestExplainUTF16AfterBOMConverts: the iconv command that the error about
// UTF-16 after a UTF-8 mark gives, run by sh, turns the file into one that
// loads.
func TestExplainUTF16AfterBOMConverts(t *testing.T) {
	if _, err := exec.LookPath("iconv"); err != nil {
		t.Fatalf("this test runs the iconv command that the error gives, and there is no iconv on PATH (%v): install it (Debian's libc-bin has it; macOS and the BSDs ship it)", err)
	}
	for _, order := range []string{"little-endian", "big-endian"} {
		t.Run(order, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "my tools.hcl")
			cmd, err := iconvCommand(loadUTF16AfterBOM(t, path, order))
			if err != nil {
				t.Fatal(err)
			}
			sh := exec.Command("sh", "-c", cmd)
			sh.Dir = "/"
			if out, err := sh.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", cmd, err, out)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != utf16AfterBOMText {
				t.Fatalf("after %s the file is %q (%v), want %q", cmd, got, err, utf16AfterBOMText)
			}
			if cfg, diags := Load([]string{path}, nil); diags.HasErrors() || len(cfg.Tools) != 1 {
				t.Fatalf("the converted file does not load:\n%s", FormatDiagnostics(diags))
			}
		})
	}
}
