package logfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func write(t *testing.T, l *File, s string) {
	t.Helper()
	if _, err := l.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// TestOpenCreatesAndAppends: the directories missing are made, the file
// is private, and an existing file is appended to.
func TestOpenCreatesAndAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "toolhost.log")
	l, err := Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	write(t, l, "one\n")
	l.Close()
	if runtime.GOOS != "windows" {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			t.Errorf("mode %v: others may read the log", st.Mode().Perm())
		}
	}
	l, err = Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	write(t, l, "two\n")
	if got := read(t, path); got != "one\ntwo\n" {
		t.Errorf("file holds %q, want both lines", got)
	}
}

// TestReopen: after a rotation tool moves the file away, removes it, or
// truncates it, the next lines go to the path.
func TestReopen(t *testing.T) {
	type rotation struct {
		name   string
		rotate func(t *testing.T, path string)
		old    string // what the moved file holds, "" if none is kept
	}
	rotations := []rotation{
		{"rename", func(t *testing.T, path string) {
			if err := os.Rename(path, path+".old"); err != nil {
				t.Fatal(err)
			}
		}, "before\n"},
		{"rename and create", func(t *testing.T, path string) {
			if err := os.Rename(path, path+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "before\n"},
		{"truncate", func(t *testing.T, path string) {
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
		}, ""},
	}
	if runtime.GOOS != "windows" {
		// On Windows a file removed while open may stay at its path,
		// pending deletion, until the last handle closes; rotation tools
		// there rename.
		rotations = append(rotations, rotation{"remove", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, ""})
	}
	for _, tc := range rotations {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "toolhost.log")
			l, err := Open(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			write(t, l, "before\n")
			tc.rotate(t, path)
			write(t, l, "after\n")
			if got := read(t, path); got != "after\n" {
				t.Errorf("the path holds %q, want only the line written after the rotation", got)
			}
			if tc.old != "" {
				if got := read(t, path+".old"); got != tc.old {
					t.Errorf("the moved file holds %q, want %q", got, tc.old)
				}
			}
		})
	}
}

// TestSizeCap: past the cap the file becomes PATH.1, replacing an older
// one, and a new file is begun.
func TestSizeCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "toolhost.log")
	l, err := Open(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	write(t, l, "12345\n")
	write(t, l, "abcde\n") // 12 bytes: over the cap
	write(t, l, "ABCDE\n")
	if got := read(t, path); got != "ABCDE\n" {
		t.Errorf("the path holds %q", got)
	}
	if got := read(t, path+".1"); got != "abcde\n" {
		t.Errorf(".1 holds %q, want the lines of the last file before (an older .1 is replaced)", got)
	}
	// A line longer than the cap is written whole, to a file of its own.
	long := strings.Repeat("x", 30) + "\n"
	write(t, l, long)
	if got := read(t, path); got != long {
		t.Errorf("the path holds %q", got)
	}
}

// TestNotRegular: a directory at the path is refused with its name and
// the fix: a file's path in it.
func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(dir, 0)
	if err == nil || !strings.Contains(err.Error(), filepath.Base(dir)) || !strings.Contains(err.Error(), filepath.Join(dir, "toolhost.log")) {
		t.Errorf("Open(dir) = %v, want an error naming it and a file's path in it", err)
	}
}
