//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/cli"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// stubbornScript ignores SIGTERM, as its child does, and writes its pid
// and the child's to "$1.$2.pid" (the marker's path and the call's tag).
const stubbornScript = `trap '' TERM; sleep 60 & echo $$ $! > "$1.$2.pid"; while :; do sleep 0.05; done`

// cleaningScript cleans up within half a second of SIGTERM: it writes
// "cleaned up" to "$1.$2" and exits.
const cleaningScript = `trap 'sleep 0.5; echo cleaned up > "$1.$2"; exit 0' TERM; sleep 60 & echo $$ $! > "$1.$2.pid"; while :; do sleep 0.05; done`

// stubbornKillTimeout is the tools' kill_timeout: far longer than any wait
// of a shutdown, so that a host that waits for it is caught.
const stubbornKillTimeout = 20 * time.Second

// stubbornConfig writes script to a file and a config whose tool "work"
// runs it with a marker path and the call's param "tag", with a
// kill_timeout of stubbornKillTimeout. It returns the config's path and
// the marker's.
func stubbornConfig(t *testing.T, script string) (cfg, marker string) {
	t.Helper()
	dir := t.TempDir()
	path, marker := filepath.Join(dir, "work.sh"), filepath.Join(dir, "marker")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg = writeConfig(t, fmt.Sprintf(`
tool "work" {
  description = "runs until stopped"
  param "tag" { type = string }
  exec {
    command      = ["sh", %q, %q, param.tag]
    timeout      = "5m"
    kill_timeout = %q
  }
}
`, path, marker, stubbornKillTimeout.String()))
	return cfg, marker
}

// groupGone reports whether no process of the process group pgid runs
// any more (a zombie runs nothing).
func groupGone(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// After the command's name: state, ppid, pgrp.
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(fields) < 3 || fields[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid && pid > 0 {
			return false
		}
	}
	return true
}

// checkGroupsGone checks that the process groups the commands led (each
// command's pid leads its group) are gone, children included.
func checkGroupsGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		testconfig.WaitFor(t, fmt.Sprintf("process %d is gone", pid), func() bool { return processGone(pid) })
	}
	if len(pids) > 0 {
		testconfig.WaitFor(t, fmt.Sprintf("process group %d is gone", pids[0]), func() bool { return groupGone(pids[0]) })
	}
}

// TestShutdownAnswersStubbornCommands: however a stdio session ends
// (SIGTERM, SIGINT, SIGHUP, the client closing stdin), a call whose
// command ignores its kill_signal and has a kill_timeout far longer than
// the shutdown waits gets its answer, once, an error result that says
// why; toolhost exits 0 long before the kill_timeout, and nothing of the
// command is left running. A command that cleans up on the signal gets
// the time to, and its call one answer too.
func TestShutdownAnswersStubbornCommands(t *testing.T) {
	bySignal := func(sig syscall.Signal) string {
		return "the call was cancelled: toolhost received a stop signal (" + signalName[sig] + ") and is exiting"
	}
	const byStdin = "the call was cancelled: the client closed toolhost's stdin"
	signal := func(sig syscall.Signal) func(s *session) {
		return func(s *session) { _ = s.cmd.Process.Signal(sig) }
	}
	closeStdin := func(s *session) { _ = s.stdin.Close() }
	for _, tc := range []struct {
		name    string
		script  string
		stop    func(s *session)
		answer  string
		cleaned bool // the command's cleanup ran before toolhost exited
	}{
		{"SIGTERM", stubbornScript, signal(syscall.SIGTERM), bySignal(syscall.SIGTERM), false},
		{"SIGINT", stubbornScript, signal(syscall.SIGINT), bySignal(syscall.SIGINT), false},
		{"SIGHUP", stubbornScript, signal(syscall.SIGHUP), bySignal(syscall.SIGHUP), false},
		{"stdin closed", stubbornScript, closeStdin, byStdin, false},
		{"SIGTERM, cleans up", cleaningScript, signal(syscall.SIGTERM), bySignal(syscall.SIGTERM), true},
		{"stdin closed, cleans up", cleaningScript, closeStdin, byStdin, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, marker := stubbornConfig(t, tc.script)
			s := startServe(t, "--watch=false", cfg)
			s.initialize("2025-06-18")
			s.sendJSON(call(1, "work", map[string]any{"tag": "a"}))
			s.sendJSON(call(2, "work", map[string]any{"tag": "b"}))
			pidsA, pidsB := hangPids(t, marker+".a.pid"), hangPids(t, marker+".b.pid")
			start := time.Now()
			tc.stop(s)

			// Every line up to the end of stdout: one answer per call.
			answers := map[float64]int{}
			for line := range s.lines {
				var m map[string]any
				if err := jsonUnmarshal(line, &m); err != nil {
					t.Fatalf("stdout carried a line that is not JSON: %q", line)
				}
				id, _ := m["id"].(float64)
				answers[id]++
				if answers[id] > 1 {
					t.Errorf("call %v answered twice: %v", id, m)
					continue
				}
				text, isErr := resultText(t, m)
				if !isErr || !strings.Contains(text, tc.answer) {
					t.Errorf("the answer of call %v: %q (isError %v); want an error result that says %q", id, text, isErr, tc.answer)
				}
				t.Logf("call %v answered %v after the stop", id, time.Since(start).Round(time.Millisecond))
			}
			if answers[1] != 1 || answers[2] != 1 {
				t.Errorf("answers by id: %v; want one for each of the calls 1 and 2", answers)
			}
			exited := make(chan error, 1)
			go func() { exited <- s.cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("toolhost exited with %v, want status 0", err)
				}
			case <-time.After(stubbornKillTimeout / 2):
				t.Fatalf("toolhost still running %v after being told to stop", stubbornKillTimeout/2)
			}
			// Stdin closed: ShutdownGrace for the calls, then as much for
			// the commands, at most.
			if d := time.Since(start); d > 3*cli.ShutdownGrace {
				t.Errorf("toolhost exited %v after the stop, want within %v", d, 3*cli.ShutdownGrace)
			}
			s.mu.Lock()
			logged := s.stderr.String()
			s.mu.Unlock()
			if strings.Contains(logged, "level=ERROR") {
				t.Errorf("the stop logged an error:\n%s", logged)
			}
			for _, tag := range []string{"a", "b"} {
				got, _ := os.ReadFile(marker + "." + tag)
				if tc.cleaned != (string(got) == "cleaned up\n") {
					t.Errorf("command %s: cleanup marker %q when toolhost exited; cleanup should have run: %v", tag, got, tc.cleaned)
				}
			}
			checkGroupsGone(t, pidsA)
			checkGroupsGone(t, pidsB)
		})
	}
}

// TestServeHTTPShutdownAnswersStubbornCommands: over HTTP, with a
// --shutdown-timeout far shorter than a command's kill_timeout, a call
// whose command ignores its kill_signal still gets its answer, on its
// POST's stream and on an SSE stream, before the server closes; toolhost
// exits 0 soon after the timeout, and nothing of the commands is left.
func TestServeHTTPShutdownAnswersStubbornCommands(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		name, args := "sessions", []string{"--shutdown-timeout", "1s", "--watch=false"}
		if stateless {
			name, args = "stateless", append(args, "--stateless")
		}
		t.Run(name, func(t *testing.T) {
			cfg, marker := stubbornConfig(t, stubbornScript)
			s := startHTTPServe(t, nil, append(args, cfg)...)
			type answer struct {
				tag  string
				res  *mcp.CallToolResult
				err  error
				when time.Time
			}
			answers := make(chan answer, 2)
			tags := map[string]bool{"streamable": false}
			if !stateless {
				tags["sse"] = true
			}
			for tag, sse := range tags {
				cs := s.connect(sse, nil, nil)
				go func() {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"tag": tag}})
					answers <- answer{tag, res, err, time.Now()}
				}()
			}
			var pids [][]int
			for tag := range tags {
				pids = append(pids, hangPids(t, marker+"."+tag+".pid"))
			}
			start := time.Now()
			if err := s.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			for range tags {
				select {
				case a := <-answers:
					if a.err != nil {
						t.Errorf("%s: the call failed: %v; want an error result", a.tag, a.err)
						continue
					}
					text := ""
					if len(a.res.Content) > 0 {
						text = a.res.Content[0].(*mcp.TextContent).Text
					}
					if !a.res.IsError || !strings.Contains(text, "the call was cancelled: toolhost is shutting down") || !strings.Contains(text, "--shutdown-timeout (1s)") {
						t.Errorf("%s: the answer = %q (isError %v), want an error result naming --shutdown-timeout", a.tag, text, a.res.IsError)
					}
					t.Logf("%s answered %v after SIGTERM", a.tag, a.when.Sub(start).Round(time.Millisecond))
				case <-time.After(stubbornKillTimeout / 2):
					t.Fatalf("a call got no answer within %v of SIGTERM", stubbornKillTimeout/2)
				}
			}
			select {
			case <-s.Exited:
				if s.Err != nil {
					t.Fatalf("exit: %v", s.Err)
				}
			case <-time.After(stubbornKillTimeout / 2):
				t.Fatalf("toolhost still running %v after SIGTERM", stubbornKillTimeout/2)
			}
			// The timeout, then at most ShutdownGrace for the server to
			// stop and ShutdownGrace for the commands: on a loaded machine
			// both waits can run their full length, so the bound has a
			// little slack beyond their sum.
			if d := time.Since(start); d > time.Second+2*cli.ShutdownGrace+500*time.Millisecond {
				t.Errorf("toolhost exited %v after SIGTERM, want within --shutdown-timeout and %v", d, 2*cli.ShutdownGrace)
			}
			if strings.Contains(s.Log(), "level=ERROR") {
				t.Errorf("the shutdown logged an error:\n%s", s.Log())
			}
			for _, p := range pids {
				checkGroupsGone(t, p)
			}
		})
	}
}

// TestCallStopAnswersStubbornCommands: toolhost call stopped by SIGTERM,
// SIGINT or SIGHUP, while its command ignores its kill_signal and has a
// kill_timeout far longer than the wait, prints the call's result at once,
// an error that names the signal, then gives the command ShutdownGrace at
// most (a second signal: none) and exits 1, with nothing of the command
// left running. A command that cleans up on its kill_signal gets the time
// to.
func TestCallStopAnswersStubbornCommands(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  string
		sig     syscall.Signal
		twice   bool // a second signal, once the result is out
		cleaned bool // the command's cleanup ran before toolhost exited
	}{
		{"SIGTERM", stubbornScript, syscall.SIGTERM, false, false},
		{"SIGINT", stubbornScript, syscall.SIGINT, false, false},
		{"SIGHUP", stubbornScript, syscall.SIGHUP, false, false},
		{"SIGINT twice", stubbornScript, syscall.SIGINT, true, false},
		{"SIGTERM, cleans up", cleaningScript, syscall.SIGTERM, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, marker := stubbornConfig(t, tc.script)
			cmd := exec.Command(binPath, "call", cfg, "work", "tag=a")
			var stdout strings.Builder
			cmd.Stdout = &stdout
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := make(chan string, 16)
			go func() {
				defer close(lines)
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
			}()
			pids := hangPids(t, marker+".a.pid")
			start := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			name := signalName[tc.sig]
			want := "work: the call was cancelled: toolhost received a stop signal (" + name + ") and is exiting"
			var logged []string
		result:
			for {
				select {
				case line, ok := <-lines:
					if !ok {
						t.Fatalf("stderr ended without the call's result %q; it had:\n%s", want, strings.Join(logged, "\n"))
					}
					logged = append(logged, line)
					if line == want {
						break result
					}
				case <-time.After(cli.ShutdownGrace):
					t.Fatalf("no result %v after %s, want %q at once; stderr had:\n%s", cli.ShutdownGrace, name, want, strings.Join(logged, "\n"))
				}
			}
			t.Logf("the result came %v after %s", time.Since(start).Round(time.Millisecond), name)
			if tc.twice {
				if err := cmd.Process.Signal(tc.sig); err != nil {
					t.Fatal(err)
				}
			}
			for line := range lines {
				logged = append(logged, line)
			}
			err = cmd.Wait()
			d := time.Since(start)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("toolhost call exited with %v, want status 1 (a failed call); stderr:\n%s", err, strings.Join(logged, "\n"))
			}
			// The command's grace, and as much again for a loaded machine.
			limit := 2 * cli.ShutdownGrace
			if tc.twice {
				limit = cli.ShutdownGrace
			}
			if d > limit {
				t.Errorf("toolhost call exited %v after %s, want within %v", d.Round(time.Millisecond), name, limit)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout = %q, want nothing (the error goes to stderr)", stdout.String())
			}
			got, _ := os.ReadFile(marker + ".a")
			if tc.cleaned != (string(got) == "cleaned up\n") {
				t.Errorf("cleanup marker %q when toolhost exited; cleanup should have run: %v", got, tc.cleaned)
			}
			checkGroupsGone(t, pids)
		})
	}
}

// signalName is the name of a signal as toolhost gives it.
var signalName = map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT", syscall.SIGHUP: "SIGHUP"}
