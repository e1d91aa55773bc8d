//go:build unix

package regular

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesWithoutWaiting opens a regular file, and a FIFO (with a
// writer that writes nothing, and without), a socket, a device and a
// directory, each by path, inside an os.Root and for writing: every one
// but the regular file gives a *NotRegularError that says what it is, at
// once.
func TestOpenRefusesWithoutWaiting(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("text"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "held"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(filepath.Join(dir, "held"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// A machine may refuse a Unix socket (a temporary directory whose
	// path is longer than a socket's address may be): its cases then
	// skip, with the reason.
	l, sockErr := net.Listen("unix", filepath.Join(dir, "sock"))
	if sockErr == nil {
		defer l.Close()
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tc := range []struct{ file, kind string }{
		{"file", ""},
		{"fifo", "a FIFO (named pipe)"},
		{"held", "a FIFO (named pipe)"},
		{"sock", "a socket"},
		{"/dev/null", "a character device"},
		{"dir", "a directory"},
	} {
		for _, o := range opens(root) {
			if tc.file == "/dev/null" && o.name == "OpenIn" {
				continue // a device is outside the root
			}
			t.Run(tc.file+"/"+o.name, func(t *testing.T) {
				if tc.file == "sock" && sockErr != nil {
					t.Skipf("this machine made no Unix socket in %s: %v", dir, sockErr)
				}
				name := tc.file
				if o.name != "OpenIn" && !filepath.IsAbs(name) {
					name = filepath.Join(dir, name)
				}
				var f *os.File
				var err error
				done := make(chan struct{})
				go func() {
					defer close(done)
					f, err = o.open(name)
				}()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("still waiting after 5s")
				}
				if tc.kind == "" {
					if err != nil {
						t.Fatalf("a regular file: %v", err)
					}
					f.Close()
					return
				}
				var nr *NotRegularError
				if !errors.As(err, &nr) || Kind(nr.Mode) != tc.kind || nr.Error() != name+" is "+tc.kind+", not a regular file" {
					t.Fatalf("got %v, %v; want %s", f, err, tc.kind)
				}
			})
		}
	}
}

// TestOpenPipe reads a pipe the process holds, through /dev/fd, to its
// end; a regular file opens too, and a directory is refused.
func TestOpenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	name := "/dev/fd/" + strconv.Itoa(int(r.Fd()))
	if _, err := os.Stat(name); err != nil {
		t.Skipf("no /dev/fd: %v", err)
	}
	go func() {
		_, _ = w.Write([]byte("tool"))
		w.Close()
	}()
	f, err := OpenPipe(name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadUpTo(f, 10, errors.New("too large"))
	f.Close()
	if string(b) != "tool" || err != nil {
		t.Errorf("got %q, %v", b, err)
	}
	var nr *NotRegularError
	if f, err := OpenPipe(t.TempDir()); !errors.As(err, &nr) {
		t.Errorf("a directory: %v, %v", f, err)
	}
}
