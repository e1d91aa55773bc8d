package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// logFileConfig has a tool with a parameter marked sensitive, which its
// answer quotes, and a tool that fails.
var logFileConfig = `
tool "login" {
  description = "logs in"
  param "user" { type = string }
  param "password" {
    type      = string
    sensitive = true
  }
  template { text = "welcome ${param.user}, your password is ${param.password}" }
}
tool "fail" {
  description = "exits 3"
  exec { command = ` + failCommand + ` }
}
`

// readLog returns the log file's text.
func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// logLines returns the lines of log that have msg and all of want.
func logLines(log, msg string, want ...string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if !strings.Contains(l, "msg=\""+msg+"\"") && !strings.Contains(l, "msg="+msg+" ") {
			continue
		}
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(l, w)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// logWant is a line a log must have: its msg, with all of want, for what.
type logWant struct {
	what, msg string
	want      []string
}

// checkLog fails t for each of wants that log has no line for.
func checkLog(t *testing.T, log string, wants []logWant) {
	t.Helper()
	for _, c := range wants {
		if len(logLines(log, c.msg, c.want...)) == 0 {
			t.Errorf("the log has no line for %s (msg=%q with %q):\n%s", c.what, c.msg, c.want, log)
		}
	}
}

// TestLogFile runs serve with --log-file in a directory that does not
// exist yet, at debug: the file gets every log line stderr gets, the
// JSON-RPC traffic both ways with the sensitive argument masked, a line
// for a malformed input line, the error text of a failed call, and after
// the file is renamed away (as a rotation tool does) the new lines go to a
// new file at the path. stdout carries the protocol only.
func TestLogFile(t *testing.T) {
	const secret = "hunter2-correct-horse"
	cfg := writeConfig(t, logFileConfig)
	logPath := filepath.Join(t.TempDir(), "not", "yet", "toolhost.log")
	s := startServe(t, "--log-level", "debug", "--log-file", logPath, "--watch=false", cfg)
	s.initialize("2025-06-18")

	s.sendJSON(call(1, "login", map[string]any{"user": "ann", "password": secret}))
	if text, isErr := resultText(t, s.recv()); isErr || !strings.Contains(text, secret) {
		t.Fatalf("login answered %q", text)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"not an object"}`)
	if resp := s.recv(); resp["error"] == nil {
		t.Fatalf("a malformed call was answered %v", resp)
	}
	s.send("garbage{")
	if resp := s.recv(); resp["error"] == nil {
		t.Fatalf("a line that is not JSON was answered %v", resp)
	}
	s.sendJSON(call(3, "fail", map[string]any{}))
	failText, isErr := resultText(t, s.recv())
	if !isErr {
		t.Fatalf("fail answered %q without isError", failText)
	}

	log := readLog(t, logPath)
	if strings.Contains(log, secret) {
		t.Errorf("the log shows the sensitive argument:\n%s", log)
	}
	checkLog(t, log, []logWant{
		{"the start", "serving over stdio", nil},
		{"the initialize request", "rpc in", []string{"method=initialize", "protocolVersion"}},
		{"the initialize answer", "rpc out", []string{"method=initialize", "serverInfo"}},
		{"the call, its argument masked", "rpc in", []string{"method=tools/call", `\"user\":\"ann\"`, `\"password\":\"(sensitive value)\"`}},
		{"the answer, the argument it quotes masked", "rpc out", []string{"method=tools/call", "your password is (redacted)"}},
		{"the tool call", "tool call", []string{"tool=login", `\"password\":\"(sensitive value)\"`, "welcome ann"}},
		{"the call with params of the wrong type", "malformed input line", []string{"id=2", "params"}},
		{"the line that is not JSON", "malformed input line", []string{"not valid JSON", `line=garbage{`}},
		{"the failed call", "tool call failed", []string{"tool=fail", "broken"}},
	})
	s.mu.Lock()
	stderr := s.stderr.String()
	s.mu.Unlock()
	if !strings.HasPrefix(log, stderr) && !strings.HasPrefix(stderr, log) {
		t.Errorf("the log file and stderr differ:\nfile:\n%s\nstderr:\n%s", log, stderr)
	}

	// A rotation tool renames the file away: the next lines go to a new
	// file at the path.
	if err := os.Rename(logPath, logPath+".old"); err != nil {
		t.Fatal(err)
	}
	s.sendJSON(call(4, "login", map[string]any{"user": "bob", "password": secret}))
	s.recv()
	if got := logLines(readLog(t, logPath), "tool call", "tool=login", "welcome bob"); len(got) != 1 {
		t.Errorf("after the rename the new file has %d lines for the call, want 1:\n%s", len(got), readLog(t, logPath))
	}
	if got := logLines(readLog(t, logPath+".old"), "tool call", "welcome bob"); len(got) != 0 {
		t.Errorf("the renamed file got the lines after the rename: %q", got)
	}

	// stdout carries the protocol only: what is left on it after stdin
	// closes is JSON-RPC too.
	s.stdin.Close()
	for open := true; open; {
		select {
		case line, ok := <-s.lines:
			if !ok {
				open = false
				break
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Errorf("stdout carried %q", line)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("stdout did not close within 30s of stdin")
		}
	}
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("serve exited with %v after stdin closed", err)
	}
	checkLog(t, readLog(t, logPath), []logWant{{"the end of the session", "server stopped", nil}})
}

// TestLogFileUnwritable: a log file that cannot be opened, or that is an
// .hcl file (a config's, as when the log's own path is left out), does
// not stop the server; stderr says why, and nothing is written there.
func TestLogFileUnwritable(t *testing.T) {
	for _, tc := range []struct {
		name string
		path func(cfg string) string
		want string
	}{
		{"a directory", func(string) string { return t.TempDir() }, "--log-file: logging to stderr only"},
		{"the config", func(cfg string) string { return cfg }, "is an .hcl file, which toolhost reads as config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, logFileConfig)
			path := tc.path(cfg)
			s := startServe(t, "--log-file", path, "--watch=false", cfg)
			s.initialize("2025-06-18")
			s.sendJSON(call(1, "login", map[string]any{"user": "ann", "password": "x"}))
			s.recv()
			s.stdin.Close()
			for range s.lines {
			}
			_ = s.cmd.Wait()
			s.mu.Lock()
			defer s.mu.Unlock()
			if !strings.Contains(s.stderr.String(), tc.want) || !strings.Contains(s.stderr.String(), filepath.Base(path)) {
				t.Errorf("stderr does not say why there is no log file:\n%s", s.stderr.String())
			}
			if got, _ := os.ReadFile(cfg); string(got) != logFileConfig {
				t.Errorf("the config was written to:\n%s", got)
			}
		})
	}
}

// TestLogFileConfigError: the diagnostics of a config that does not load
// at start go to the log file too, where an editor's user can read them.
func TestLogFileConfigError(t *testing.T) {
	cfg := writeConfig(t, "tool \"broken\" {\n  description = 42\n  template { text = \"x\" }\n  nonsense = true\n}\n")
	logPath := filepath.Join(t.TempDir(), "logs", "toolhost.log")
	s := startServe(t, "--log-file", logPath, cfg)
	testconfig.WaitFor(t, "the log file names the config's problem", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "nonsense")
	})
	// The same lines reach stderr through a pipe the test reads on a
	// goroutine of its own, which may come after the file (under wine it
	// did).
	testconfig.WaitFor(t, "stderr names the config's problem", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return strings.Contains(s.stderr.String(), "nonsense")
	})
}
