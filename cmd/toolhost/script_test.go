package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/toolhost/toolhost/internal/testconfig"
)

var updateScripts = flag.Bool("update-scripts", false, "rewrite the cmp golden files inside the scripts' .txtar files")

// TestScripts runs the command-line scripts in testdata/script against the
// toolhost binary TestMain builds, on PATH: exit codes, what goes to stdout
// and to stderr, files written and left alone. Run with -update-scripts to
// rewrite the golden outputs compared with cmp. Their exec tools run
// toolhost-helper (testconfig.Run), on PATH too, so that they run on every
// platform; the scripts about unix programs are in testdata/script-unix
// (TestScriptsUnix).
func TestScripts(t *testing.T) {
	runScripts(t, filepath.Join("testdata", "script"))
}

// runScripts runs the scripts in dir as TestScripts describes.
func runScripts(t *testing.T, dir string) {
	testscript.Run(t, testscript.Params{
		Dir:           dir,
		UpdateScripts: *updateScripts,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", filepath.Dir(binPath)+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		// [wine]: the test runs under wine, which cannot do everything
		// Windows does (symbolic links).
		Condition: func(cond string) (bool, error) {
			if cond == "wine" {
				return testconfig.UnderWine(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"status": cmdStatus,
		},
	})
}

// cmdStatus is "status CODE PROGRAM [ARGS...]": it runs the program like
// exec, so that stdout and stderr can be checked after it, and fails unless
// the exit code is CODE.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %q is not an exit code", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			ts.Fatalf("status: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}
