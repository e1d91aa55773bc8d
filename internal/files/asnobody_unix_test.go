//go:build unix

package files

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user id runAsNobody runs a test as: Debian's and most
// Linux systems' nobody.
const nobody = 65534

// runAsNobody runs the test t again, in a copy of this test binary, as the
// user nobody, for a test that root cannot run: root reads files whatever
// their mode, and the tests run as root on CI. It fails t when the test
// fails there, or did not run. A machine that cannot start a process as
// nobody (a user namespace that maps no such user) skips, saying so.
func runAsNobody(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The copy and the test's temporary files are where nobody may go:
	// go test's own directories are root's alone.
	dir, err := os.MkdirTemp("", "files-test-as-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, tmp} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "files.test")
	if err := copyFile(exe, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Skipf("SKIPPED, NOT RUN: the tests run as root, who reads files whatever their mode, and this machine cannot start the test as the user nobody (uid %d) instead: %v", nobody, err)
		}
		t.Fatalf("%s, run again as the user nobody (uid %d), failed: %v\n%s", t.Name(), nobody, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s, run again as the user nobody (uid %d), did not pass:\n%s", t.Name(), nobody, out)
	}
}

// copyFile copies the file src to dst, executable by everyone.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
