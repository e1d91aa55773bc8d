package exec

import (
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestMain runs the test binary as a program when an exec tool of the
// tests starts it (testconfig.RunProgram), and the tests otherwise.
func TestMain(m *testing.M) { testconfig.Main(m) }
