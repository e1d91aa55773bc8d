package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
	"golang.org/x/sys/windows"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// helperEnv is the variable that makes the test binary act as the
// program of a test's command (TestHelperProcess) rather than run tests.
const helperEnv = "TOOLHOST_EXEC_HELPER"

// TestHelperProcess is not a test: run with helperEnv set, it is the
// program the Windows tests' commands run, doing what its arguments after
// "--" say:
//
//	tree PIDFILE      start a child that sleeps, write "PID CHILDPID" to PIDFILE, sleep
//	sleep             sleep
//	exit CODE         exit with CODE
//	print N           write N bytes "x" to standard output
//	env               write the environment, a variable a line
//	graceful MARKER   wait for CTRL_BREAK, then create MARKER and exit 0
//	host PIDFILE      run "tree PIDFILE" in a job, as toolhost does, and exit
//	                  once PIDFILE is written, leaving it running
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("not a test: the program of the Windows tests' commands")
	}
	args := os.Args
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		os.Exit(2)
	}
	os.Exit(helperMain(args[1], args[2:]))
}

// helperMain does what TestHelperProcess's mode says, and returns its
// exit code.
func helperMain(mode string, args []string) int {
	switch mode {
	case "tree":
		child := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", "sleep")
		child.Env = append(os.Environ(), helperEnv+"=1")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		line := fmt.Sprintf("%d %d\n", os.Getpid(), child.Process.Pid)
		if err := os.WriteFile(args[0], []byte(line), 0o644); err != nil {
			return 3
		}
		time.Sleep(time.Minute)
	case "sleep":
		time.Sleep(time.Minute)
	case "host":
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", "tree", args[0])
		cmd.Env = append(os.Environ(), helperEnv+"=1")
		setProcessGroup(cmd)
		if err := cmd.Start(); err != nil {
			return 3
		}
		if err := startGroup(cmd); err != nil {
			return 3
		}
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if b, _ := os.ReadFile(args[0]); strings.HasSuffix(string(b), "\n") {
				return 0
			}
		}
		return 3
	case "exit":
		code, _ := strconv.ParseUint(args[0], 0, 32)
		return int(code)
	case "print":
		n, _ := strconv.Atoi(args[0])
		os.Stdout.WriteString(strings.Repeat("x", n))
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
	case "graceful":
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt) // CTRL_BREAK arrives as os.Interrupt
		<-c
		if err := os.WriteFile(args[0], nil, 0o644); err != nil {
			return 3
		}
	}
	return 0
}

// helperCommand is the command attribute of an exec block whose program
// is the test binary acting as TestHelperProcess in mode, with args (HCL
// expressions) after it, and env setting helperEnv.
func helperCommand(mode string, args ...string) string {
	elems := []string{strconv.Quote(os.Args[0]), `"-test.run=^TestHelperProcess$"`, `"--"`, strconv.Quote(mode)}
	return fmt.Sprintf("command = [%s]\nenv = { %s = \"1\" }", strings.Join(append(elems, args...), ", "), helperEnv)
}

// processGone reports whether the process pid has exited, or does so
// within within.
func processGone(pid int, within time.Duration) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true // no such process any more
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, uint32(within/time.Millisecond))
	return err == nil && ev == windows.WAIT_OBJECT_0
}

// TestExecJobEndsTree: a timeout and a cancellation end the command and
// the child it started, through its job object.
func TestExecJobEndsTree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		timeout string
		cancel  bool
		want    string
	}{
		{"timeout", "2s", false, "command timed out after 2s (timeout) and was killed"},
		{"cancellation", "60s", true, context.Canceled.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := defaultFixture()
			pidfile := filepath.Join(t.TempDir(), "pids")
			e := f.mustCompile(t, helperCommand("tree", "param.pidfile")+"\ntimeout = \""+tt.timeout+"\"\nkill_timeout = \"0s\"")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := f.call(t, ctx, e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
				errc <- err
			}()
			pids := testconfig.Pids(t, pidfile, 2, 30*time.Second)
			if tt.cancel {
				cancel()
			}
			select {
			case err := <-errc:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error = %v, want %q", err, tt.want)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the call did not return")
			}
			for i, pid := range pids {
				if !processGone(pid, 5*time.Second) {
					t.Errorf("process %d (%s) still runs", pid, []string{"the command", "its child"}[i])
				}
			}
		})
	}
}

// TestExecHostExitEndsTree: when toolhost exits without ending its
// commands (a crash), the system closes their jobs, which ends each
// command and what it started.
func TestExecHostExitEndsTree(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	host := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", "host", pidfile)
	host.Env = append(os.Environ(), helperEnv+"=1")
	if out, err := host.CombinedOutput(); err != nil {
		t.Fatalf("host: %v: %s", err, out)
	}
	for _, pid := range testconfig.Pids(t, pidfile, 2, time.Second) {
		if !processGone(pid, 5*time.Second) {
			t.Errorf("process %d outlives the host", pid)
		}
	}
}

// TestExecKillCommandsEndsTree: KillCommands, as the host exits, ends the
// command and its child.
func TestExecKillCommandsEndsTree(t *testing.T) {
	f := defaultFixture()
	pidfile := filepath.Join(t.TempDir(), "pids")
	e := f.mustCompile(t, helperCommand("tree", "param.pidfile")+"\nkill_timeout = \"30s\"")
	errc := make(chan error, 1)
	go func() {
		_, err := f.call(t, context.Background(), e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
		errc <- err
	}()
	pids := testconfig.Pids(t, pidfile, 2, 30*time.Second)
	killCommands()
	select {
	case err := <-errc:
		if want := "command was killed (its job object was terminated)"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v, want %q", err, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not return")
	}
	for _, pid := range pids {
		if !processGone(pid, 5*time.Second) {
			t.Errorf("process %d still runs", pid)
		}
	}
}

// TestExecExitStatus: how a command that failed ended reads as on Linux.
func TestExecExitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code string
		want string
	}{
		{"3", "command exited with status 3"},
		{"0xC0000005", "command was killed by status 0xC0000005 (access violation)"},
		{"0xC0000142", "command was killed by status 0xC0000142"},
		{strconv.Itoa(jobKilledCode), "command was killed (its job object was terminated)"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			t.Parallel()
			f := defaultFixture()
			e := f.mustCompile(t, helperCommand("exit", strconv.Quote(tt.code)))
			_, err := f.call(t, context.Background(), e, nil)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestExecGracefulStop: with a kill_timeout, a timeout sends CTRL_BREAK
// to the command's process group, and a command that exits on it is
// stopped, not killed.
func TestExecGracefulStop(t *testing.T) {
	if testconfig.UnderWine() {
		t.Skip("wine cannot send console control events: GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT) fails with \"Invalid access\"")
	}
	t.Parallel()
	f := defaultFixture()
	marker := filepath.Join(t.TempDir(), "stopped")
	e := f.mustCompile(t, helperCommand("graceful", "param.path")+"\ntimeout = \"2s\"\nkill_timeout = \"20s\"")
	_, err := f.call(t, context.Background(), e, map[string]cty.Value{"path": cty.StringVal(marker)})
	if want := "command timed out after 2s (timeout) and was stopped with CTRL_BREAK"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the command did not see CTRL_BREAK: %v", err)
	}
}

// TestExecSignalFallsBackToKill: a stop whose console event cannot be sent
// kills the group at once rather than leaving it running.
func TestExecSignalFallsBackToKill(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", "sleep")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := startGroup(cmd); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	defer endGroup(cmd.Process.Pid)
	r := &process{grace: time.Minute, signal: "no such signal"}
	r.setPid(cmd.Process.Pid)
	if err := r.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || exitDescription(ee.ProcessState) != "command was killed (its job object was terminated)" {
		t.Errorf("wait = %v, want the job killed", err)
	}
	if !groupGone(cmd.Process.Pid) {
		t.Error("groupGone = false after the kill")
	}
}
