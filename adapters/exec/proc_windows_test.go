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

// helperEnv is a variable every helperCommand's env sets, which
// TestExecMinimalEnv finds in the command's environment.
const helperEnv = "TOOLHOST_EXEC_HELPER"

// init adds the test programs (testconfig.RunProgram) that only the
// Windows tests of processes run:
//
//	tree PIDFILE      start a child that sleeps, write "PID CHILDPID" to PIDFILE, sleep
//	graceful MARKER   wait for CTRL_BREAK, then create MARKER and exit 0
//	host PIDFILE      run "tree PIDFILE" in a job, as toolhost does, and exit
//	                  once PIDFILE is written, leaving it running
func init() {
	testconfig.AddProgram("tree", testconfig.Takes(1, treeProgram))
	testconfig.AddProgram("graceful", testconfig.Takes(1, gracefulProgram))
	testconfig.AddProgram("host", testconfig.Takes(1, hostProgram))
}

// treeProgram is the program "tree PIDFILE".
func treeProgram(args []string) error {
	child := helperCmd("sleep", "60")
	if err := child.Start(); err != nil {
		return err
	}
	line := fmt.Sprintf("%d %d\n", os.Getpid(), child.Process.Pid)
	if err := os.WriteFile(args[0], []byte(line), 0o644); err != nil {
		return err
	}
	time.Sleep(time.Minute)
	return nil
}

// gracefulProgram is the program "graceful MARKER".
func gracefulProgram(args []string) error {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt) // CTRL_BREAK arrives as os.Interrupt
	<-c
	return os.WriteFile(args[0], nil, 0o644)
}

// hostProgram is the program "host PIDFILE".
func hostProgram(args []string) error {
	cmd := helperCmd("tree", args[0])
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := startGroup(cmd); err != nil {
		return err
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(args[0]); strings.HasSuffix(string(b), "\n") {
			return nil
		}
	}
	return errors.New("the tree wrote no pids")
}

// helperCmd returns a command that runs the test binary as the program of
// steps args (testconfig.RunProgram).
func helperCmd(args ...string) *exec.Cmd {
	argv := testconfig.ProgramArgv(args...)
	return exec.Command(argv[0], argv[1:]...)
}

// helperCommand is the command attribute of an exec block whose program
// is the test binary running step, with args (HCL expressions) after it,
// and an env that sets helperEnv.
func helperCommand(step string, args ...string) string {
	return fmt.Sprintf("command = %s\nenv = { %s = \"1\" }", testconfig.ProgramList(append([]string{strconv.Quote(step)}, args...)...), helperEnv)
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

// TestExecJobEndsTree: a timeout, a cancellation and KillCommands (the
// host exiting) end the command and the child it started, through its
// job object; a host that exits without ending its commands (a crash)
// leaves the system to close their jobs, which ends them too.
func TestExecJobEndsTree(t *testing.T) {
	// Not in parallel: KillCommands kills every test's commands.
	tests := []struct {
		name  string
		attrs string
		how   string // "timeout", "cancel", "kill", or "host exit"
		want  string
	}{
		{"timeout", "timeout = \"2s\"\nkill_timeout = \"0s\"", "timeout", "command timed out after 2s (timeout) and was killed"},
		{"cancellation", "kill_timeout = \"0s\"", "cancel", context.Canceled.Error()},
		{"KillCommands", "kill_timeout = \"30s\"", "kill", "command was killed (its job object was terminated)"},
		{"host exit", "", "host exit", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pidfile := filepath.Join(t.TempDir(), "pids")
			if tt.how == "host exit" {
				if out, err := helperCmd("host", pidfile).CombinedOutput(); err != nil {
					t.Fatalf("host: %v: %s", err, out)
				}
			} else {
				callTree(t, tt.attrs, tt.how, pidfile, tt.want)
			}
			for i, pid := range testconfig.Pids(t, pidfile, 2, time.Second) {
				if !processGone(pid, 5*time.Second) {
					t.Errorf("process %d (%s) still runs", pid, []string{"the command", "its child"}[i])
				}
			}
		})
	}
}

// callTree calls a tool whose command starts a child (helper mode tree,
// with pidfile), ends the call as how says once both run, and checks the
// call's error holds want.
func callTree(t *testing.T, attrs, how, pidfile, want string) {
	t.Helper()
	f := defaultFixture()
	e := f.mustCompile(t, helperCommand("tree", "param.pidfile")+"\n"+attrs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := f.call(t, ctx, e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
		errc <- err
	}()
	testconfig.Pids(t, pidfile, 2, 30*time.Second)
	switch how {
	case "cancel":
		cancel()
	case "kill":
		killCommands()
	}
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v, want %q", err, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not return")
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
	cmd := helperCmd("sleep", "60")
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
	forced, cut, unsent := r.finish()
	e := &Exec{killTimeout: time.Minute, killSignal: "SIGTERM"}
	want := "was killed: CTRL_BREAK could not be sent to it"
	if got := e.howStopped(outcome{forced: forced, cut: cut, unsent: unsent}); got != want {
		t.Errorf("howStopped = %q, want %q", got, want)
	}
}
