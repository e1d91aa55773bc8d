package host

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPollableInputPipe checks that a blocking pipe is read through a
// non-blocking open file of its own, up to its end, and that the pipe's
// first open file, which the client may share, stays blocking.
func TestPollableInputPipe(t *testing.T) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "client")
	defer r.Close()
	in := pollableInput(r)
	if in == io.Reader(r) {
		t.Fatal("pollableInput returned the blocking pipe as it was")
	}
	defer in.(*os.File).Close()
	if fl, err := unix.FcntlInt(uintptr(fds[0]), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Errorf("the pipe's first open file has flags %#x (%v): it must stay blocking", fl, err)
	}
	rc, err := in.(*os.File).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	_ = rc.Control(func(fd uintptr) {
		if fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK == 0 {
			t.Errorf("the pipe's new open file has flags %#x (%v), want non-blocking", fl, err)
		}
	})
	go func() {
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
		_ = w.Close()
	}()
	got, err := io.ReadAll(in)
	if err != nil {
		t.Fatalf("reading to the end: %v", err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"; string(got) != want {
		t.Errorf("read %q, want %q", got, want)
	}
}

// TestPollableInputKept checks the inputs pollableInput leaves as they
// are: not a file, a regular file (opened again it would start over), and
// a pipe that is non-blocking already.
func TestPollableInputKept(t *testing.T) {
	file := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(file, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	regular, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	pr, pw, err := os.Pipe() // non-blocking, watched by the poller
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, c := range []struct {
		name string
		in   io.Reader
	}{
		{"not a file", strings.NewReader("x\n")},
		{"regular file", regular},
		{"non-blocking pipe", pr},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := pollableInput(c.in); got != c.in {
				t.Errorf("pollableInput returned %v, want its input", got)
			}
		})
	}
}
