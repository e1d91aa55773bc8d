//go:build unix

package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveProgramAgain: the program found on PATH the last time is
// taken again only while it is still an executable file there; once it
// is gone, or no longer executable, the PATH is searched again.
func TestResolveProgramAgain(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	env := []string{"PATH=" + first + ":" + second}
	put := func(dir string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "tool"), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "tool"), mode); err != nil {
			t.Fatal(err)
		}
	}
	e := &Exec{baseDir: t.TempDir()}
	steps := []struct {
		name string
		do   func()
		want string // a path, or the start of the error
	}{
		{"found in the second directory", func() { put(second, 0o755) }, filepath.Join(second, "tool")},
		{"the same again", func() {}, filepath.Join(second, "tool")},
		{"moved to the first", func() {
			_ = os.Remove(filepath.Join(second, "tool"))
			put(first, 0o755)
		}, filepath.Join(first, "tool")},
		{"no longer executable there", func() {
			put(first, 0o644)
			put(second, 0o755)
		}, filepath.Join(second, "tool")},
		{"gone", func() { _ = os.Remove(filepath.Join(second, "tool")) }, `command "tool" not found on PATH`},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do()
			got, err := e.resolveProgram("tool", env)
			if err != nil {
				got = err.Error()
			}
			if !strings.HasPrefix(got, s.want) {
				t.Errorf("resolveProgram = %q, want %q", got, s.want)
			}
		})
	}
}
