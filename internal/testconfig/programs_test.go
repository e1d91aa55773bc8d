package testconfig

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain runs the test binary as a program when a test starts it
// (RunProgram), and the tests otherwise.
func TestMain(m *testing.M) { Main(m) }

// TestRunProgram runs the test binary as programs of a few steps each and
// checks what they write and how they exit.
func TestRunProgram(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("in a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantOut    string
		wantStderr string
		wantCode   int
	}{
		{"echo", []string{"echo", "a", "b"}, "", "a b\n", "", 0},
		{"steps in turn", []string{"print", "x", "repeat", "3", "ab", "bytes", "0a"}, "", "xababab\n", "", 0},
		{"cat stdin", []string{"cat"}, "piped", "piped", "", 0},
		{"cat files", []string{"cat", file, file}, "", "in a filein a file", "", 0},
		{"stderr and exit", []string{"stderr", "broken", "exit", "3", "print", "never"}, "", "", "broken\n", 3},
		{"args", []string{"args", "a b", `"q"`, ""}, "", `["a b","\"q\"",""]` + "\n", "", 0},
		{"unknown step", []string{"nope"}, "", "", "program: nope: not a step", 2},
		{"missing operand", []string{"print"}, "", "", "program: print: an operand is missing", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			argv := ProgramArgv(tt.args...)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			got := string(out)
			if got != tt.wantOut || code != tt.wantCode || !strings.HasPrefix(stderr.String(), tt.wantStderr) {
				t.Errorf("output %q, stderr %q, exit %d; want %q, %q, %d", got, stderr.String(), code, tt.wantOut, tt.wantStderr, tt.wantCode)
			}
		})
	}
}
