package host

import (
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestMain runs the test binary as a program when an exec tool of the
// tests starts it (testconfig.RunProgram), and the tests otherwise.
func TestMain(m *testing.M) { testconfig.Main(m) }

// helperCommand is the command attribute of an exec block that runs the
// test binary as a program doing what args say (the steps of
// testconfig.RunProgram): each arg is an HCL expression (a quoted string,
// param.x). The tests then need no unix program (sh, echo, sleep), and run
// on Windows.
func helperCommand(args ...string) string {
	return "command = " + testconfig.ProgramList(args...)
}
