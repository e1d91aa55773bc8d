//go:build windows

package exec

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// roundTripValues are parameter values that a command line must carry
// exactly: what the standard quoting escapes (spaces, tabs, quotes,
// backslashes before a quote and at the end), what cmd.exe would read
// (%VAR%, ^, &, |, <, >, !), empty strings and text that is not ASCII.
var roundTripValues = []string{
	"plain", "two words", "  spaces  around  ", "tab\there", "",
	`say "hi"`, `"`, `""`, `"quoted"`, `a"b"c`,
	`back\slash`, `back\"quote`, `back\\"quotes`, `trail\`, `trail\\`, `\`, `\\server\share\`, `C:\Program Files\`, `a\\\"b`,
	"%PATH%", "%%", "^caret^", "a & b", "a&&b", "a | b", "<in", "out>", "(x)", "!VAR!", "x' ; calc",
	"日本語", "ünïcödé ✓", "new\nline", "emoji 🙂",
}

// TestExecArgsRoundTrip: a Windows program receives one command line,
// which os/exec builds with the standard quoting (syscall.EscapeArg) and
// which the program, here the test binary, splits back: every parameter
// value comes back exactly, through the argv the tool builds and through a
// call of the tool. The program ("args", testconfig.RunProgram) prints
// UTF-8, which the tool's charset
// says, since the output of a Windows command is read in the console's
// code page otherwise.
func TestExecArgsRoundTrip(t *testing.T) {
	f := defaultFixture()
	body := `command = concat(` + testconfig.ProgramList(`"args"`) + `, param.files)
inherit_env = true
charset = "utf-8"`
	e := f.mustCompile(t, body)
	items := make([]cty.Value, len(roundTripValues))
	for i, v := range roundTripValues {
		items[i] = cty.StringVal(v)
	}
	args := map[string]cty.Value{"files": cty.ListVal(items)}
	check := func(t *testing.T, out []byte) {
		t.Helper()
		var got []string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		if len(got) != len(roundTripValues) {
			t.Fatalf("got %d arguments, want %d: %q", len(got), len(roundTripValues), got)
		}
		for i, want := range roundTripValues {
			if got[i] != want {
				t.Errorf("argument %d = %q, want %q", i, got[i], want)
			}
		}
	}

	t.Run("argv", func(t *testing.T) {
		argv, err := e.buildArgv(f.input(args).Eval)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(argv[0])
		cmd.Args = argv
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("running %q: %v", argv[0], err)
		}
		check(t, out)
	})
	t.Run("call", func(t *testing.T) {
		out, err := f.call(t, context.Background(), e, args)
		if err != nil {
			t.Fatal(err)
		}
		check(t, []byte(strings.TrimSpace(string(out.Body))))
	})
}
