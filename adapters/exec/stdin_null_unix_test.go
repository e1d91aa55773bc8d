//go:build unix

package exec

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestExecNullStdinOwnOpen checks that a command without standard input
// gets the null device opened for it alone: a lock it takes on its
// standard input ends with it, instead of staying with an open file that
// toolhost shares among its commands and keeps open.
func TestExecNullStdinOwnOpen(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock")
	}
	f := defaultFixture()
	// flock with a descriptor number locks that descriptor and exits.
	e := f.mustCompile(t, `command = ["flock", "-x", "0"]`)
	if _, err := f.call(t, context.Background(), e, nil); err != nil {
		t.Fatalf("call: %v", err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if err := syscall.Flock(int(null.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("the null device is still locked after the command that locked it exited: %v", err)
	}
	_ = syscall.Flock(int(null.Fd()), syscall.LOCK_UN)
}
