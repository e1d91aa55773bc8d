package hcl

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// fixturePrograms are the unix programs that the exec tools of the fixtures
// (testdata/ and examples/) name. Loading only checks that a tool's program
// is found on the PATH; it never runs it.
var fixturePrograms = []string{"awk", "date", "echo", "ls", "man", "printf", "pwd", "sh", "true"}

// TestMain puts a directory of empty NAME.exe files, one for each of
// fixturePrograms, first on the PATH: the fixtures test what they test on
// Windows too, without a "Program not found" warning for programs that a
// Windows machine does not have.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolhost-hcl-programs")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, name := range fixturePrograms {
		if err := os.WriteFile(filepath.Join(dir, name+".exe"), nil, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
