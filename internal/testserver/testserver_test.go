package testserver

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// stopped is what recorder panics with when a test would stop.
type stopped struct{ how, msg string }

// recorder is a testing.TB whose Skip and Fatal are recorded.
type recorder struct {
	testing.TB
}

func (recorder) Helper()              {}
func (recorder) Skip(args ...any)     { panic(stopped{"skip", args[0].(string)}) }
func (recorder) Fatal(args ...any)    { panic(stopped{"fatal", args[0].(string)}) }
func (recorder) Skipf(string, ...any) { panic(stopped{"skip", ""}) }

// find runs Find with a recorder and returns the directory, or how it
// stopped.
func find(fallback string, programs ...string) (dir string, stop stopped) {
	defer func() {
		if r := recover(); r != nil {
			stop = r.(stopped)
		}
	}()
	return Find(recorder{}, "some-package", fallback, programs...), stop
}

// TestFind checks where Find looks and its skip policy: a missing program
// skips the test, except under CI, where it fails.
func TestFind(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Find always skips on Windows")
	}
	dir := t.TempDir()
	for _, name := range []string{"server", "tool"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct {
		name, ci, fallback string
		programs           []string
		want, stop         string
	}{
		{"fallback", "", filepath.Join(filepath.Dir(dir), "*"), []string{"server", "tool"}, dir, ""},
		{"missing, not CI", "", dir, []string{"server", "absent"}, "", "skip"},
		{"missing under CI", "true", dir, []string{"server", "absent"}, "", "fatal"},
		{"not executable, under CI", "true", dir, []string{"plain"}, "", "fatal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			got, stop := find(tc.fallback, tc.programs...)
			if got != tc.want || stop.how != tc.stop {
				t.Errorf("Find = %q, %q (%s), want %q, %q", got, stop.how, stop.msg, tc.want, tc.stop)
			}
		})
	}
}
