//go:build linux

package exec

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// TestAwaitExit checks that awaitExit returns once the process has
// exited, leaves it for Wait to reap, and that Wait then reports how it
// ended: by itself, with a status, or killed by a signal.
func TestAwaitExit(t *testing.T) {
	for _, c := range []struct {
		name   string
		end    func(cmd *exec.Cmd, stdin *os.File) error
		status int  // the exit status Wait reports
		signal bool // killed by SIGKILL instead
	}{
		{"exits", func(_ *exec.Cmd, stdin *os.File) error { return stdin.Close() }, 0, false},
		{"killed", func(cmd *exec.Cmd, _ *os.File) error { return cmd.Process.Kill() }, -1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, err := exec.LookPath("cat")
			if err != nil {
				t.Skip("no cat")
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			cmd := exec.Command(cat)
			cmd.Stdin = r
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r.Close()
			returned := make(chan struct{})
			go func() {
				awaitExit(cmd.Process)
				close(returned)
			}()
			// cat runs until its standard input closes (or it is killed):
			// only then may awaitExit return.
			if err := c.end(cmd, w); err != nil {
				t.Fatal(err)
			}
			<-returned
			if state := procState(t, cmd.Process.Pid); state != "Z" {
				t.Errorf("after awaitExit the process is in state %q, want Z (exited, not reaped)", state)
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			switch {
			case c.signal && (!errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL):
				t.Errorf("Wait: %v, want killed by SIGKILL", err)
			case !c.signal && err != nil:
				t.Errorf("Wait: %v, want success", err)
			case cmd.ProcessState.ExitCode() != c.status:
				t.Errorf("exit code %d, want %d", cmd.ProcessState.ExitCode(), c.status)
			}
		})
	}
}

// procState is the state of process pid, from /proc/PID/stat.
func procState(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	return string(f[0])
}
