package exec

import (
	"os"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestMain runs the test binary as a program when a test's command starts
// it (testconfig.RunProgram), and the tests otherwise.
func TestMain(m *testing.M) {
	testconfig.RunProgram()
	os.Exit(m.Run())
}
