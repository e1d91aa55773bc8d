package logfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPartialWriteCutOff: a line that the disk takes only part of (here
// a file size limit, as a full disk does) leaves nothing of itself, so
// that the line written once there is room again starts a line of its
// own. The limit is set in a child process, the test binary run again.
func TestPartialWriteCutOff(t *testing.T) {
	if path := os.Getenv("LOGFILE_TEST_FSIZE"); path != "" {
		fsizeChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	cmd := exec.Command(os.Args[0], "-test.run=^TestPartialWriteCutOff$")
	cmd.Env = append(os.Environ(), "LOGFILE_TEST_FSIZE="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child failed: %v\n%s", err, out)
	}
	if got := read(t, path); got != "one\nthree\n" {
		t.Errorf("the file holds %q, want %q: the line cut by the limit is left in it", got, "one\nthree\n")
	}
}

// fsizeChild writes a line, a line past a file size limit, and a line
// after the limit is lifted; it exits 1 when the writes do not go as
// they should.
func fsizeChild(path string) {
	l, err := Open(path, 0)
	if err != nil {
		os.Exit(1)
	}
	if _, err := l.Write([]byte("one\n")); err != nil {
		os.Exit(1)
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim) != nil {
		os.Exit(1)
	}
	small := lim
	small.Cur = 10
	if syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small) != nil {
		os.Exit(1)
	}
	if _, err := l.Write([]byte("two, longer than the limit\n")); err == nil {
		os.Exit(1)
	}
	if syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim) != nil {
		os.Exit(1)
	}
	if _, err := l.Write([]byte("three\n")); err != nil {
		os.Exit(1)
	}
	l.Close()
	os.Exit(0)
}
