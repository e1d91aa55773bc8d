package bridge_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// programArg, first on the command line, makes this test binary the
// program of the tests' exec tools (testProgram) rather than run the tests:
// the tools then run alike on Linux and Windows, with no shell.
const programArg = "-bridge-test-program"

// TestMain runs testProgram when the binary is started as an exec tool's
// program, and the tests otherwise.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == programArg {
		os.Exit(testProgram(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// testProgram does what args[0] names, and returns the exit status:
//   - print TEXT: writes TEXT;
//   - png: writes the first 16 bytes of a PNG file;
//   - fail: writes "broken" to stderr and exits with status 3;
//   - big: writes 20000 bytes;
//   - gate DIR LABEL: creates DIR/LABEL.started, waits until DIR/LABEL.go
//     exists, and writes LABEL.
func testProgram(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "no command")
		return 2
	}
	switch cmd, args := args[0], args[1:]; {
	case cmd == "print" && len(args) == 1:
		fmt.Print(args[0])
	case cmd == "png":
		os.Stdout.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	case cmd == "fail":
		fmt.Fprintln(os.Stderr, "broken")
		return 3
	case cmd == "big":
		fmt.Print(strings.Repeat("x", 20000))
	case cmd == "gate" && len(args) == 2:
		dir, label := args[0], args[1]
		if err := os.WriteFile(filepath.Join(dir, label+".started"), nil, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, label+".go")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Print(label)
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q %q\n", cmd, args)
		return 2
	}
	return 0
}

// programExpr is the start of an exec tool's command that runs
// testProgram, as HCL list elements: the test binary and programArg.
func programExpr(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%q, %q", exe, programArg)
}
