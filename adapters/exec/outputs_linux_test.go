//go:build linux

package exec

import (
	"bytes"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// outputKinds are the two ways a command's output is read on Linux: on
// the goroutine that waits for it (where pidfds poll), and by a goroutine
// for each pipe.
var outputKinds = []struct {
	name string
	make func(stdout, stderr io.Writer) (outputs, error)
}{
	{"polled", newPolledOutputs},
	{"goroutines", newPipeOutputs},
}

// runWith runs sh -c script with its output read as make reads it, and
// returns what it wrote to each pipe; drain waits until deadline at most.
func runWith(t *testing.T, make func(stdout, stderr io.Writer) (outputs, error), script string, deadline time.Duration) (stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	o, err := make(&out, &errs)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	cmd := startSh(t, o, script)
	o.awaitExit(cmd.Process)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("sh: %v", err)
	}
	o.drain(time.Now().Add(deadline))
	return out.String(), errs.String()
}

// startSh starts sh -c script with its output going to o.
func startSh(t *testing.T, o outputs, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout, cmd.Stderr = o.writers()
	err := cmd.Start()
	o.started()
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestOutputsRead checks that both ways read both pipes while the command
// runs (a command writing more than a pipe holds to each would otherwise
// never exit), and all of it.
func TestOutputsRead(t *testing.T) {
	for _, k := range outputKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			out, errs := runWith(t, k.make, "head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2; echo end", time.Minute)
			if len(out) != 300004 || !strings.HasSuffix(out, "end\n") {
				t.Errorf("stdout: %d bytes, ending %q", len(out), out[max(0, len(out)-8):])
			}
			if len(errs) != 200000 {
				t.Errorf("stderr: %d bytes, want 200000", len(errs))
			}
		})
	}
}

// TestOutputsDrainDeadline checks that drain stops at its deadline when a
// process the command left holds a pipe open, with what was written.
func TestOutputsDrainDeadline(t *testing.T) {
	for _, k := range outputKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			// The background sleep keeps both pipes open; its pid goes
			// to standard error, which it also holds.
			out, errs := runWith(t, k.make, "sleep 600 & echo $! >&2; echo done", 100*time.Millisecond)
			pid, err := strconv.Atoi(strings.TrimSpace(errs))
			if err != nil {
				t.Fatalf("stderr = %q, want the pid of the background sleep", errs)
			}
			// drain returned while the sleep still held the pipes.
			if err := syscall.Kill(pid, 0); err != nil {
				t.Errorf("the background sleep had ended (%v): drain was not cut short", err)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
			if out != "done\n" {
				t.Errorf("stdout = %q", out)
			}
		})
	}
}

// TestOutputsWithoutPidfd: when a command's pidfd cannot be opened (out
// of descriptors), its output is still read while it runs, and the wait
// ends once it has exited: a command writing more than a pipe holds is not
// left waiting for a reader. Not parallel: it replaces pidfdOpen.
func TestOutputsWithoutPidfd(t *testing.T) {
	defer func(open func(int, int) (int, error)) { pidfdOpen = open }(pidfdOpen)
	pidfdOpen = func(int, int) (int, error) { return -1, syscall.EMFILE }
	done := make(chan [2]string, 1)
	go func() {
		out, errs := runWith(t, newPolledOutputs, "head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2; echo end", time.Minute)
		done <- [2]string{out, errs}
	}()
	select {
	case got := <-done:
		if len(got[0]) != 300004 || !strings.HasSuffix(got[0], "end\n") || len(got[1]) != 200000 {
			t.Errorf("read %d bytes of stdout and %d of stderr, want 300004 and 200000", len(got[0]), len(got[1]))
		}
	case <-time.After(time.Minute):
		t.Fatal("the command was not read without its pidfd: it waits for a reader")
	}
}

// TestOutputsCut checks that cut, from another goroutine, makes the waits
// of the polled outputs return long before their own end, and that goOn
// lets a cut wait go on to read the output to its end: a call whose host
// exits meanwhile is answered at once, and a goroutine reads the rest.
func TestOutputsCut(t *testing.T) {
	tests := []struct {
		name   string
		noPidf bool // the pidfd cannot be opened: awaitExit looks every 20 ms
		wait   func(o *polledOutputs, cmd *exec.Cmd)
	}{
		{name: "awaitExit", wait: func(o *polledOutputs, cmd *exec.Cmd) { o.awaitExit(cmd.Process) }},
		{name: "awaitExit without a pidfd", noPidf: true, wait: func(o *polledOutputs, cmd *exec.Cmd) { o.awaitExit(cmd.Process) }},
		{name: "drain", wait: func(o *polledOutputs, cmd *exec.Cmd) { o.drain(time.Now().Add(time.Hour)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.noPidf {
				defer func(open func(int, int) (int, error)) { pidfdOpen = open }(pidfdOpen)
				pidfdOpen = func(int, int) (int, error) { return -1, syscall.EMFILE }
			}
			var out, errs bytes.Buffer
			o, err := newPolledOutputs(&out, &errs)
			if err != nil {
				t.Fatal(err)
			}
			defer o.close()
			po := o.(*polledOutputs)
			// The shell holds both pipes until it is killed.
			cmd := startSh(t, o, "echo started; exec sleep 600")
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			returned := make(chan struct{})
			go func() {
				defer close(returned)
				tt.wait(po, cmd)
			}()
			time.Sleep(50 * time.Millisecond)
			po.cut()
			select {
			case <-returned:
			case <-time.After(10 * time.Second):
				t.Fatal("the wait did not return within 10s of cut")
			}
			if !po.wasCut() {
				t.Error("wasCut = false after cut")
			}
			// Cut, every wait returns at once, until goOn.
			po.awaitExit(cmd.Process)
			po.goOn()
			if po.wasCut() {
				t.Error("wasCut = true after goOn")
			}
			_ = cmd.Process.Kill()
			po.awaitExit(cmd.Process)
			if err := cmd.Wait(); err == nil {
				t.Error("the killed shell exited 0")
			}
			po.drain(time.Now().Add(time.Minute))
			if out.String() != "started\n" {
				t.Errorf("stdout = %q, want what the shell wrote", out.String())
			}
			if po.r[0] >= 0 || po.r[1] >= 0 {
				t.Error("after goOn, drain did not read the pipes to their end")
			}
		})
	}
}
