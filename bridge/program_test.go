package bridge_test

import (
	"os"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestMain runs the test binary as a program when an exec tool of the
// tests starts it (testconfig.RunProgram): the tools then run alike on
// Linux and Windows, with no shell. Otherwise it runs the tests.
func TestMain(m *testing.M) {
	testconfig.RunProgram()
	os.Exit(m.Run())
}
