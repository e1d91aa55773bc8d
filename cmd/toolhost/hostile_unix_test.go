//go:build unix

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// processGone reports whether pid no longer runs (or is a zombie awaiting a
// reaper that is not ours).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

// TestCancel cancels an unknown request (nothing happens), a running exec
// call (its process group is killed) and a running http call (the upstream
// sees the request aborted). Cancelled requests get no reply.
func TestCancel(t *testing.T) {
	aborted := make(chan struct{}, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			aborted <- struct{}{}
		case <-time.After(20 * time.Second):
			fmt.Fprint(w, "too late")
		}
	}))
	defer upstream.Close()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	cfg := writeConfig(t, fmt.Sprintf(`
tool "hang" {
  description = "starts a child that would run for a minute"
  exec {
    command = ["sh", "-c", "sleep 60 & echo $! > %s; wait"]
    timeout = "5m"
  }
}
tool "fetch" {
  description = "waits on a slow upstream"
  http {
    url     = %q
    timeout = "5m"
  }
}
tool "hello" {
  description = "greets"
  template { text = "hi" }
}
`, pidFile, upstream.URL))
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	cancel := func(id any) {
		s.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": id, "reason": "test"}})
	}

	cancel(999) // unknown: ignored
	s.sendJSON(call(1, "hello", nil))
	if m := s.recv(); m["id"] != float64(1) {
		t.Fatalf("after cancelling an unknown request: %v", m)
	}

	s.sendJSON(call(2, "hang", nil))
	var pid int
	testconfig.WaitFor(t, "the command wrote its child's pid", func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	cancel(2)
	testconfig.WaitFor(t, "the cancelled command's child is killed", func() bool { return processGone(pid) })

	s.sendJSON(call(3, "fetch", nil))
	time.Sleep(100 * time.Millisecond) // let the request reach the upstream
	cancel(3)
	select {
	case <-aborted:
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream never saw the cancelled request aborted")
	}

	// No late reply for 2 or 3: close stdin and read everything that is
	// left; the server answers what is pending and exits.
	s.sendJSON(call(4, "hello", nil))
	s.stdin.Close()
	for line := range s.lines {
		var m map[string]any
		if jsonUnmarshal(line, &m) == nil && (m["id"] == float64(2) || m["id"] == float64(3)) {
			t.Fatalf("a cancelled request was answered: %v", m)
		}
	}
}

// hangConfig writes a config whose tool "hang" starts a child and a
// grandchild that would run for a minute, and writes their pids to the
// file it returns.
func hangConfig(t *testing.T) (cfg, pidFile string) {
	t.Helper()
	pidFile = filepath.Join(t.TempDir(), "pid")
	cfg = writeConfig(t, fmt.Sprintf(`
tool "hang" {
  description = "starts a child and a grandchild that would run for a minute"
  exec {
    command = ["sh", "-c", "sleep 60 & echo $$ $! > %s; wait"]
    timeout = "5m"
  }
}
`, pidFile))
	return cfg, pidFile
}

// hangPids waits until a "hang" call (hangConfig) has written its two
// pids, and returns them.
func hangPids(t *testing.T, pidFile string) []int {
	t.Helper()
	return testconfig.Pids(t, pidFile, 2, 10*time.Second)
}

// TestHostExitKillsCommands checks that however the host is told to stop
// (SIGTERM, SIGINT, SIGHUP, the client closing stdin) a command in flight
// is killed with its whole process group, the call is answered with a
// result that says why, and the host exits promptly and cleanly (status
// 0, nothing logged as an error) instead of waiting for the command's
// timeout.
func TestHostExitKillsCommands(t *testing.T) {
	const bySignal = "the call was cancelled: toolhost received a stop signal"
	tests := []struct {
		name   string
		stop   func(s *session)
		within time.Duration // generous: the host itself takes milliseconds
		answer string        // in the call's result
	}{
		{name: "SIGTERM", stop: func(s *session) { _ = s.cmd.Process.Signal(syscall.SIGTERM) }, within: 10 * time.Second, answer: bySignal},
		{name: "SIGINT", stop: func(s *session) { _ = s.cmd.Process.Signal(syscall.SIGINT) }, within: 10 * time.Second, answer: bySignal},
		{name: "SIGHUP", stop: func(s *session) { _ = s.cmd.Process.Signal(syscall.SIGHUP) }, within: 10 * time.Second, answer: bySignal},
		// Closing stdin leaves calls in flight a grace period to finish.
		{name: "stdin closed", stop: func(s *session) { _ = s.stdin.Close() }, within: 10*time.Second + 2*time.Second, answer: "the call was cancelled: the client closed toolhost's stdin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, pidFile := hangConfig(t)
			s := startServe(t, "--watch=false", cfg)
			s.initialize("2025-06-18")
			s.sendJSON(call(1, "hang", nil))
			pids := hangPids(t, pidFile)
			start := time.Now()
			tc.stop(s)
			m := s.recv()
			if text, isErr := resultText(t, m); m["id"] != float64(1) || !isErr || !strings.Contains(text, tc.answer) {
				t.Errorf("the answer of the call in flight: %v; want an error result that says %q", m, tc.answer)
			}
			exited := make(chan error, 1)
			go func() { exited <- s.cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("host exited with %v, want status 0", err)
				}
			case <-time.After(tc.within):
				t.Fatalf("host still running %v after being told to stop", tc.within)
			}
			t.Logf("host exited %v after being told to stop", time.Since(start).Round(time.Millisecond))
			s.mu.Lock()
			logged := s.stderr.String()
			s.mu.Unlock()
			if strings.Contains(logged, "level=ERROR") {
				t.Errorf("a stop logged an error:\n%s", logged)
			}
			for _, pid := range pids {
				testconfig.WaitFor(t, fmt.Sprintf("process %d is gone", pid), func() bool { return processGone(pid) })
			}
		})
	}
}

// stopConfig writes script to a file and a config whose tool "work" runs
// it with the path of a marker file as $1, and the given kill_timeout; it
// returns the config's path and the marker's. The scripts write their pid
// and a child's to the marker's path with ".pid" added.
func stopConfig(t *testing.T, script, killTimeout string) (cfg, marker string) {
	t.Helper()
	dir := t.TempDir()
	path, marker := filepath.Join(dir, "stop.sh"), filepath.Join(dir, "marker")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg = writeConfig(t, fmt.Sprintf(`
tool "work" {
  description = "runs until stopped"
  exec {
    command      = ["sh", %q, %q]
    kill_timeout = %q
  }
}
`, path, marker, killTimeout))
	return cfg, marker
}

// checkStopped checks, once toolhost has exited, that the marker holds
// want (a handler ran in time; "" when none must have) and that the
// processes are gone.
func checkStopped(t *testing.T, marker, want string, pids []int) {
	t.Helper()
	got, err := os.ReadFile(marker)
	if want != "" && string(got) != want {
		t.Errorf("marker = %q (%v) when toolhost exited, want %q", got, err, want)
	}
	for _, pid := range pids {
		testconfig.WaitFor(t, fmt.Sprintf("process %d is gone", pid), func() bool { return processGone(pid) })
	}
}

// TestHostExitLetsCommandsCleanUp: a command in flight when toolhost is
// told to stop gets its kill_signal and kill_timeout to clean up before
// the host exits; one that ignores the signal is killed, with what it
// started, once the session's ShutdownGrace is over, however long its
// kill_timeout.
func TestHostExitLetsCommandsCleanUp(t *testing.T) {
	tests := []struct {
		name        string
		script      string // $1 is the marker file's path
		killTimeout string
		wantMarker  string
	}{
		{"cleans up", `trap 'sleep 0.2; echo cleaned up > "$1"; exit 0' TERM; sleep 60 & echo $$ $! > "$1.pid"; while :; do sleep 0.05; done`, "10s", "cleaned up\n"},
		{"ignores the signal", `trap '' TERM; sleep 60 & echo $$ $! > "$1.pid"; while :; do sleep 0.05; done`, "1m", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, marker := stopConfig(t, tc.script, tc.killTimeout)
			s := startServe(t, "--watch=false", cfg)
			s.initialize("2025-06-18")
			s.sendJSON(call(1, "work", nil))
			pids := hangPids(t, marker+".pid")
			start := time.Now()
			_ = s.cmd.Process.Signal(syscall.SIGTERM)
			exited := make(chan error, 1)
			go func() { exited <- s.cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("host exited with %v, want status 0", err)
				}
			case <-time.After(8 * time.Second): // ShutdownGrace is 2 s
				t.Fatal("host still running 8s after SIGTERM")
			}
			t.Logf("host exited %v after SIGTERM", time.Since(start).Round(time.Millisecond))
			checkStopped(t, marker, tc.wantMarker, pids)
		})
	}
}

// TestCallInterrupted: Ctrl-C in toolhost call gives the command its
// kill_signal and what is left of ShutdownGrace to clean up; a second
// Ctrl-C kills it at once, with what it started.
func TestCallInterrupted(t *testing.T) {
	tests := []struct {
		name       string
		script     string // $1 is the marker file's path
		twice      bool   // a second SIGINT, once the first had no effect
		wantMarker string
	}{
		{"cleans up", `trap 'sleep 0.2; echo cleaned up > "$1"; exit 0' TERM; sleep 60 & echo $$ $! > "$1.pid"; while :; do sleep 0.05; done`, false, "cleaned up\n"},
		{"ignores the signal", `trap '' TERM; sleep 60 & echo $$ $! > "$1.pid"; while :; do sleep 0.05; done`, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, marker := stopConfig(t, tc.script, "1m")
			cmd := exec.Command(binPath, "call", cfg, "work")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			pids := hangPids(t, marker+".pid")
			_ = cmd.Process.Signal(syscall.SIGINT)
			if tc.twice {
				select {
				case err := <-exited:
					t.Fatalf("call exited (%v) while its command ignored SIGTERM, before its kill_timeout", err)
				case <-time.After(500 * time.Millisecond):
				}
				_ = cmd.Process.Signal(syscall.SIGINT)
			}
			select {
			case <-exited:
			case <-time.After(8 * time.Second):
				_ = cmd.Process.Kill()
				<-exited // Wait has copied stderr: it may be read
				t.Fatalf("call still running 8s after Ctrl-C; stderr:\n%s", stderr.String())
			}
			checkStopped(t, marker, tc.wantMarker, pids)
		})
	}
}
