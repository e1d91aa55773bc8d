//go:build unix

package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/zclconf/go-cty/cty"
)

// processGone waits until pid has exited (or is a zombie nobody reaped yet)
// and reports whether it did before the deadline.
func processGone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			// The state follows the command name in parentheses.
			if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
				return true
			}
		} else if errors.Is(err, os.ErrNotExist) && runtime.GOOS == "linux" {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readPids waits for the pid file the test command writes and returns the
// pids in it.
func readPids(t *testing.T, path string, within time.Duration) []int {
	t.Helper()
	return testconfig.Pids(t, path, 0, within)
}

// sleeperBody starts a background grandchild, writes "shellpid childpid"
// to param.pidfile, and sleeps.
const sleeperBody = `command = ["sh", "-c", "sleep 30 & echo $$ $! > \"$1.tmp\"; mv \"$1.tmp\" \"$1\"; sleep 30", "sh", param.pidfile]
timeout = "%s"`

func TestExecKillsProcessGroup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		timeout string
		stop    func(cancel context.CancelFunc, e *Exec) // stops the call once the pids are known
		check   func(t *testing.T, err error)
	}{
		{"timeout", "500ms", nil, func(t *testing.T, err error) {
			if err == nil || err.Error() != "command timed out after 500ms (timeout) and was stopped with SIGTERM" {
				t.Errorf("err = %v", err)
			}
		}},
		{"cancel", "30s", func(cancel context.CancelFunc, _ *Exec) { cancel() }, func(t *testing.T, err error) {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		}},
		{"close", "30s", func(_ context.CancelFunc, e *Exec) { e.Close() }, func(t *testing.T, err error) {
			if err == nil || err.Error() != "the command was stopped with SIGTERM because the tool's configuration was unloaded; call the tool again" {
				t.Errorf("err = %v, want a stopped command", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := defaultFixture()
			e := f.mustCompile(t, strings.Replace(sleeperBody, "%s", tt.timeout, 1))
			pidfile := filepath.Join(t.TempDir(), "pids")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				out *adapters.Output
				err error
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				out, err := e.Call(ctx, f.input(map[string]cty.Value{"pidfile": cty.StringVal(pidfile)}))
				done <- result{out, err}
			}()
			pids := readPids(t, pidfile, 10*time.Second)
			if len(pids) != 2 {
				t.Fatalf("pids = %v", pids)
			}
			if tt.stop != nil {
				tt.stop(cancel, e)
			}
			var r result
			select {
			case r = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("call did not return")
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("call took %s", d)
			}
			tt.check(t, r.err)
			for _, pid := range pids {
				if !processGone(pid, 5*time.Second) {
					t.Errorf("process %d is still running", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

func TestExecLeftoversKilledOnExit(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	e := f.mustCompile(t, `command = ["sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $! > \"$1\"; echo done", "sh", param.pidfile]`)
	pidfile := filepath.Join(t.TempDir(), "pids")
	out, err := f.call(t, context.Background(), e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if string(out.Body) != "done\n" {
		t.Errorf("body = %q", out.Body)
	}
	for _, pid := range readPids(t, pidfile, time.Second) {
		if !processGone(pid, 5*time.Second) {
			t.Errorf("background process %d outlived the call", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func TestExecGrandchildHoldingStdout(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	// The background sleep keeps standard output open after sh exits.
	e := f.mustCompile(t, `command = ["sh", "-c", "sleep 30 & echo $! > \"$1\"; echo done", "sh", param.pidfile]`)
	pidfile := filepath.Join(t.TempDir(), "pids")
	start := time.Now()
	out, err := f.call(t, context.Background(), e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("call took %s", d)
	}
	if string(out.Body) != "done\n" {
		t.Errorf("body = %q", out.Body)
	}
	for _, pid := range readPids(t, pidfile, time.Second) {
		if !processGone(pid, 5*time.Second) {
			t.Errorf("background process %d outlived the call", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestExecEscapedChildHoldingStdout: a process that left the command's
// process group (setsid) cannot be killed with it and may hold standard
// output open; the call still returns, after waitDelay, with what the
// command wrote.
func TestExecEscapedChildHoldingStdout(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	// The escaped shell writes its pid once it has its own session; the
	// command waits for that, so the group kill cannot come first.
	e := f.mustCompile(t, `command = ["sh", "-c", "setsid sh -c 'echo $$ > \"$1\"; exec sleep 30' sh \"$1\" & while [ ! -s \"$1\" ]; do sleep 0.01; done; echo done", "sh", param.pidfile]`)
	pidfile := filepath.Join(t.TempDir(), "pids")
	out, err := f.call(t, context.Background(), e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
	pids := readPids(t, pidfile, time.Second)
	for _, pid := range pids {
		if processGone(pid, 0) {
			t.Errorf("process %d did not escape the group; the test tests nothing", pid)
		}
		syscall.Kill(pid, syscall.SIGKILL) // it escaped: ours to clean up
	}
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if string(out.Body) != "done\n" {
		t.Errorf("body = %q", out.Body)
	}
}

// TestExecEscapedChildNotATimeout: a command that exits well within its
// timeout, leaving its stdout to a process that escaped its group, is
// drained for up to a second; when that runs past the timeout, the call
// still succeeded, and is not reported as timed out. The timeout is the
// drain's second, so the drain always ends past it, and the command
// itself (a few shells) has all of it on a loaded machine.
func TestExecEscapedChildNotATimeout(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	e := f.mustCompile(t, `command = ["sh", "-c", "setsid sh -c 'echo $$ > \"$1\"; exec sleep 30' sh \"$1\" & while [ ! -s \"$1\" ]; do sleep 0.01; done; echo done", "sh", param.pidfile]
timeout = "1s"`)
	pidfile := filepath.Join(t.TempDir(), "pids")
	out, err := f.call(t, context.Background(), e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
	for _, pid := range readPids(t, pidfile, time.Second) {
		syscall.Kill(pid, syscall.SIGKILL) // it escaped: ours to clean up
	}
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if string(out.Body) != "done\n" {
		t.Errorf("body = %q", out.Body)
	}
}

func TestExecClosed(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	e := f.mustCompile(t, `command = ["true"]`)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.call(t, context.Background(), e, nil); err == nil {
		t.Error("call after Close succeeded")
	}
}

// scriptFile writes script to a file in a new temporary directory and
// returns the file's path and the path of a marker file beside it.
func scriptFile(t *testing.T, script string) (path, marker string) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "script.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, filepath.Join(dir, "marker")
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// loopBody ends the scripts of the kill_timeout tests: it says the
// script's handlers are in place ($1.ready) and runs until stopped.
const loopBody = `echo ready > "$1.ready"; while :; do sleep 0.05; done`

// TestExecKillTimeout: a command that is stopped gets kill_signal, and
// kill_timeout to clean up before its process group is killed with
// SIGKILL; the call's error says which ended it. Each script gets the
// path of a marker file as $1; a handler that ran writes it.
func TestExecKillTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   string
		settings string // kill_timeout and kill_signal
		// stop stops the call once the script is ready: nil waits for
		// its timeout (1s).
		stop       func(cancel context.CancelFunc, e *Exec)
		wantErr    string
		wantMarker string        // "": there must be no marker
		atLeast    time.Duration // the call takes at least this long
	}{
		{name: "cleans up on SIGTERM", script: `trap 'echo cleaned up > "$1"; exit 3' TERM; ` + loopBody,
			settings: `kill_timeout = "20s"`,
			wantErr:  "command timed out after 1s (timeout) and was stopped with SIGTERM", wantMarker: "cleaned up\n"},
		{name: "ignores SIGTERM", script: `trap '' TERM; ` + loopBody,
			settings: `kill_timeout = "400ms"`,
			wantErr:  "command timed out after 1s (timeout) and was killed: it was still running 400ms after SIGTERM (kill_timeout)",
			atLeast:  1400 * time.Millisecond},
		{name: "kill_timeout zero", script: `trap 'echo cleaned up > "$1"; exit 3' TERM; ` + loopBody,
			settings: `kill_timeout = "0s"`,
			wantErr:  "command timed out after 1s (timeout) and was killed"},
		{name: "kill_signal", script: `trap 'echo cleaned up after USR1 > "$1"; exit 3' USR1; ` + loopBody,
			settings: `kill_signal = "usr1"`,
			wantErr:  "command timed out after 1s (timeout) and was stopped with SIGUSR1", wantMarker: "cleaned up after USR1\n"},
		// The leader dies of SIGTERM at once; its child, which does not
		// hold the output pipes, takes 300 ms to clean up, and the call
		// waits for it.
		{name: "the group gets its time",
			script:   `sh -c 'trap "sleep 0.3; echo child cleaned up > \"\$0\"; exit 0" TERM; echo ready > "$0.ready"; while :; do sleep 0.05; done' "$1" >/dev/null 2>&1 & wait`,
			settings: `kill_timeout = "20s"`,
			wantErr:  "command timed out after 1s (timeout) and was stopped with SIGTERM", wantMarker: "child cleaned up\n",
			atLeast: 1300 * time.Millisecond},
		{name: "cancelled", script: `trap 'echo cleaned up > "$1"; exit 3' TERM; ` + loopBody,
			stop:    func(cancel context.CancelFunc, _ *Exec) { cancel() },
			wantErr: context.Canceled.Error(), wantMarker: "cleaned up\n"},
		{name: "unloaded", script: `trap 'echo cleaned up > "$1"; exit 3' TERM; ` + loopBody,
			stop:    func(_ context.CancelFunc, e *Exec) { e.Close() },
			wantErr: "the command was stopped with SIGTERM because the tool's configuration was unloaded; call the tool again", wantMarker: "cleaned up\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script, marker := scriptFile(t, tt.script)
			f := defaultFixture()
			e := f.mustCompile(t, fmt.Sprintf("command = [\"sh\", %q, param.path]\ntimeout = \"1s\"\n%s", script, tt.settings))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := f.call(t, ctx, e, map[string]cty.Value{"path": cty.StringVal(marker)})
				done <- err
			}()
			if tt.stop != nil {
				waitFile(t, marker+".ready")
				tt.stop(cancel, e)
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("call did not return")
			}
			took := time.Since(start)
			// sh may add what it printed ("Terminated").
			if err == nil || (err.Error() != tt.wantErr && !strings.HasPrefix(err.Error(), tt.wantErr+"; the end of what it printed: ")) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if took < tt.atLeast || took > 10*time.Second {
				t.Errorf("call took %s, want at least %s and well under the kill_timeout", took, tt.atLeast)
			}
			// The marker is there when the call returns, not later.
			got, rerr := os.ReadFile(marker)
			if tt.wantMarker == "" && rerr == nil {
				t.Errorf("a handler ran: marker %q", got)
			}
			if tt.wantMarker != "" && string(got) != tt.wantMarker {
				t.Errorf("marker = %q (%v), want %q", got, rerr, tt.wantMarker)
			}
		})
	}
}

// TestKillCommands: KillCommands cuts a stopped command's kill_timeout
// short, with SIGKILL to its whole process group. Not parallel: it kills
// every command of the process.
func TestKillCommands(t *testing.T) {
	script, marker := scriptFile(t, `trap '' TERM; sleep 60 & echo $! > "$1"; `+loopBody)
	f := defaultFixture()
	e := f.mustCompile(t, fmt.Sprintf("command = [\"sh\", %q, param.path]\nkill_timeout = \"1m\"", script))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := f.call(t, ctx, e, map[string]cty.Value{"path": cty.StringVal(marker)})
		done <- err
	}()
	waitFile(t, marker+".ready")
	pids := readPids(t, marker, time.Second)
	cancel() // SIGTERM, which the group ignores
	select {
	case err := <-done:
		t.Fatalf("the call returned before KillCommands: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	start := time.Now()
	killCommands()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not return after KillCommands")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %s to return after KillCommands", took)
	}
	for _, pid := range pids {
		if !processGone(pid, 5*time.Second) {
			t.Errorf("process %d is still running", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestExecHostExiting: a call whose context ends because the host is
// exiting (HostExiting) returns at once, whatever its kill_timeout, while
// its command gets its kill_signal and the rest of its time: one that
// takes seconds to clean up does so, writing to its output pipes, which
// stay open (it does not die of SIGPIPE); WaitCommands returns once it
// has ended. One that
// ignores its signal is still running when WaitCommands gives up, and
// KillCommands kills its whole group. Not parallel: WaitCommands and
// KillCommands see every command of the process.
func TestExecHostExiting(t *testing.T) {
	// A command an earlier test stopped may still be ending on a loaded
	// machine; WaitCommands below is to see only this test's.
	settle, stopSettle := context.WithTimeout(context.Background(), 30*time.Second)
	if !waitCommands(settle) {
		t.Fatal("commands of earlier tests still run 30s on")
	}
	stopSettle()
	tests := []struct {
		name       string
		script     string // $1 is the marker's path
		wantMarker string // "": the handler must not have run
		// ends: the command ends by itself, and WaitCommands returns once
		// it has; else WaitCommands gives up after a second.
		ends bool
	}{
		{name: "cleans up",
			script:     `trap 'sleep 3; echo cleaning up; echo cleaning up >&2; echo cleaned up > "$1"; exit 0' TERM; sleep 60 & echo $$ $! > "$1.pids"; ` + loopBody,
			wantMarker: "cleaned up\n", ends: true},
		{name: "ignores the signal",
			script: `trap '' TERM; sleep 60 & echo $$ $! > "$1.pids"; ` + loopBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script, marker := scriptFile(t, tt.script)
			f := defaultFixture()
			e := f.mustCompile(t, fmt.Sprintf("command = [\"sh\", %q, param.path]\nkill_timeout = \"1m\"\nstderr_log = \"info\"", script))
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			done := make(chan error, 1)
			go func() {
				_, err := f.call(t, ctx, e, map[string]cty.Value{"path": cty.StringVal(marker)})
				done <- err
			}()
			waitFile(t, marker+".ready")
			pids := readPids(t, marker+".pids", 5*time.Second)
			reason := errors.New("the host is going away")
			start := time.Now()
			cancel(adapters.HostExiting(reason))
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the call did not return within 5s of the host's exit, its command within its kill_timeout")
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("the call took %s to return: it waited for its command", took)
			}
			if cause := context.Cause(ctx); !errors.Is(cause, adapters.ErrHostExiting) || !errors.Is(cause, reason) || cause.Error() != reason.Error() {
				t.Errorf("cause = %v, want the reason, marked as an exit", cause)
			}
			within := time.Second
			if tt.ends {
				within = 30 * time.Second // a loaded machine may be slow
			}
			wait, stop := context.WithTimeout(context.Background(), within)
			ended := waitCommands(wait)
			stop()
			if ended != tt.ends {
				t.Errorf("WaitCommands = %v, want %v", ended, tt.ends)
			}
			killCommands()
			got, rerr := os.ReadFile(marker)
			if tt.wantMarker == "" && rerr == nil {
				t.Errorf("a handler ran: marker %q", got)
			}
			if tt.wantMarker != "" && string(got) != tt.wantMarker {
				t.Errorf("marker = %q (%v), want %q", got, rerr, tt.wantMarker)
			}
			for _, pid := range pids {
				if !processGone(pid, 5*time.Second) {
					t.Errorf("process %d is still running", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			wait, stop = context.WithTimeout(context.Background(), 5*time.Second)
			defer stop()
			if !waitCommands(wait) {
				t.Error("WaitCommands still waits after KillCommands")
			}
		})
	}
}

// TestHostExiting: HostExiting marks a reason without changing its text,
// and does not mark one twice; other causes are not exits.
func TestHostExiting(t *testing.T) {
	t.Parallel()
	reason := errors.New("toolhost received a stop signal")
	marked := adapters.HostExiting(reason)
	if !errors.Is(marked, adapters.ErrHostExiting) || !errors.Is(marked, reason) || marked.Error() != reason.Error() {
		t.Errorf("HostExiting(%v) = %v: want the reason's text, marked", reason, marked)
	}
	if again := adapters.HostExiting(marked); again != marked {
		t.Errorf("HostExiting marked a marked reason again: %#v", again)
	}
	for _, cause := range []error{context.Canceled, context.DeadlineExceeded, reason} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		if adapters.Exiting(ctx) {
			t.Errorf("a context ended with %v counts as an exit", cause)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	if adapters.Exiting(ctx) {
		t.Error("a context not ended counts as an exit")
	}
	cancel(marked)
	if !adapters.Exiting(ctx) {
		t.Error("a context ended with HostExiting does not count as an exit")
	}
}

// TestExecGroupGone: a process group counts as gone once nothing in it
// runs, its zombies included, which are what is left where orphans are
// not reaped (a container's first process).
func TestExecGroupGone(t *testing.T) {
	t.Parallel()
	start := func(args ...string) *exec.Cmd {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	running := start("sleep", "60")
	if groupGone(running.Process.Pid) {
		t.Error("a group with a running process counts as gone")
	}
	running.Process.Kill()
	running.Wait()
	if !groupGone(running.Process.Pid) {
		t.Error("a group with no process left counts as running")
	}
	if runtime.GOOS != "linux" {
		return // elsewhere a zombie counts as running until reaped
	}
	exited := start("true")
	defer exited.Wait()
	state := func() string {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", exited.Process.Pid))
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && len(b) > i+2 {
			return string(b[i+2])
		}
		return ""
	}
	for deadline := time.Now().Add(10 * time.Second); state() != "Z"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the process did not become a zombie: state %q", state())
		}
	}
	if !groupGone(exited.Process.Pid) {
		t.Error("a group whose one process is a zombie counts as running")
	}
}

// TestExecStopAfterExit: stopping a command whose process group has
// nothing left running (it exited by itself as its timeout fired or its
// tool was unloaded; reaped or not) sends no signal and does not count as
// stopping it, so the call reports how it ended, not a timeout or an
// unload; nothing signals that group later, whose number may be
// another's by then.
func TestExecStopAfterExit(t *testing.T) {
	t.Parallel()
	for _, reaped := range []bool{false, true} {
		t.Run(fmt.Sprintf("reaped=%v", reaped), func(t *testing.T) {
			cmd := exec.Command("true")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			pid := cmd.Process.Pid
			if reaped {
				cmd.Wait()
			} else if runtime.GOOS == "linux" {
				for deadline := time.Now().Add(10 * time.Second); !onlyZombies(pid); time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the process did not become a zombie")
					}
				}
			} else {
				t.Skip("a zombie counts as running without /proc")
			}
			run := &process{grace: time.Minute, signal: "SIGTERM", pid: pid}
			run.stop()
			if run.wasStopped() {
				t.Error("a command that had exited counts as stopped")
			}
			run.mu.Lock()
			armed, done := run.timer != nil, run.done
			run.mu.Unlock()
			if armed || !done {
				t.Errorf("timer armed %v, done %v: the gone group may be signalled later", armed, done)
			}
		})
	}
}

// TestExecExitLeavesStdinHeld: a command that exits by itself, leaving a
// process of its group that holds its standard input without reading it,
// returns at once, its group killed: a long kill_timeout, which is for
// stopped commands, does not make the call wait for the input to be
// written.
func TestExecExitLeavesStdinHeld(t *testing.T) {
	t.Parallel()
	script, marker := scriptFile(t, `exec 3<&0; sleep 30 <&3 >/dev/null 2>&1 3<&- & echo $! > "$1"; echo finished`)
	f := defaultFixture()
	e := f.mustCompile(t, fmt.Sprintf("command = [\"sh\", %q, param.path]\nstdin = param.text\nkill_timeout = \"30s\"", script))
	start := time.Now()
	out, err := f.call(t, context.Background(), e, map[string]cty.Value{
		"path": cty.StringVal(marker),
		"text": cty.StringVal(strings.Repeat("x", 1<<20)), // more than a pipe holds
	})
	took := time.Since(start)
	if err != nil || strings.TrimSpace(string(out.Body)) != "finished" {
		t.Errorf("err = %v, output %v; want the command's output", err, out)
	}
	if took > 10*time.Second {
		t.Errorf("the call took %s: it waited for the kill_timeout", took)
	}
	pids := readPids(t, marker, time.Second)
	if !processGone(pids[0], 5*time.Second) {
		t.Errorf("the command's background process %d is still running", pids[0])
		syscall.Kill(pids[0], syscall.SIGKILL)
	}
}
