package exec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestExecBatchFoundAtCall: a program written without an extension that a
// call's PATHEXT lookup finds as a batch file (deploy -> deploy.cmd, made
// after the config loaded) is refused before anything runs, when the
// command passes it a parameter: cmd.exe would parse the value.
func TestExecBatchFoundAtCall(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	f := defaultFixture()
	e := f.mustCompile(t, `command = ["deploy", param.text]
env = { PATH = "`+strings.ReplaceAll(bin, `\`, `\\`)+`" }`)
	ran := filepath.Join(bin, "ran.txt")
	script := "@echo off\r\necho ran > \"" + ran + "\"\r\n"
	if err := os.WriteFile(filepath.Join(bin, "deploy.cmd"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := f.call(t, context.Background(), e, map[string]cty.Value{"text": cty.StringVal("a&calc")})
	if err == nil || !strings.Contains(err.Error(), "batch") {
		t.Fatalf("the call of a batch file with a parameter: err = %v, want a refusal that names the batch file", err)
	}
	if _, statErr := os.Stat(ran); statErr == nil {
		t.Fatal("the batch file ran")
	}
}
