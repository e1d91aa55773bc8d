//go:build unix

package main

import (
	"path/filepath"
	"testing"
)

// TestScriptsUnix runs the scripts in testdata/script-unix as TestScripts
// runs its own: those whose configs are about unix programs (sh scripts,
// perl's and ssh's options, git's variables), which are not found on
// Windows.
func TestScriptsUnix(t *testing.T) {
	runScripts(t, filepath.Join("testdata", "script-unix"))
}
