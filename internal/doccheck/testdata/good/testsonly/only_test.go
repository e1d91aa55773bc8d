// Package testsonly is a directory of tests alone, whose package comment can
// only be in a test file.
package testsonly

import "testing"

// TestNothing checks nothing.
func TestNothing(t *testing.T) {}
