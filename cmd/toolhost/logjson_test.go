package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// auditConfig is logFileConfig (a tool that writes, as it has no
// read-only hint, with a sensitive parameter, and a tool that fails) and
// a read-only tool.
var auditConfig = logFileConfig + `
tool "peek" {
  description = "reads"
  annotations { read_only_hint = true }
  template { text = "nothing to see" }
}
`

// jsonRecords parses every line of log as a JSON object with time, level
// and msg, failing t for each line that is not one.
func jsonRecords(t *testing.T, log string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for line := range strings.Lines(log) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("a line of stderr is not a JSON object (%v): %q", err, line)
			continue
		}
		for _, k := range []string{"time", "level", "msg"} {
			if _, ok := m[k].(string); !ok {
				t.Errorf("a record has no string %q: %q", k, line)
			}
		}
		recs = append(recs, m)
	}
	return recs
}

// findRecord returns the first of recs with msg whose keys have the
// values of want (as JSON decodes them), or nil.
func findRecord(recs []map[string]any, msg string, want map[string]any) map[string]any {
	for _, r := range recs {
		if r["msg"] != msg {
			continue
		}
		ok := true
		for k, v := range want {
			ok = ok && r[k] == v
		}
		if ok {
			return r
		}
	}
	return nil
}

// auditRecords reads the audit log at path: one JSON object a line.
func auditRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var recs []map[string]any
	for line := range bytes.Lines(b) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("a line of the audit log is not a JSON object (%v): %q", err, line)
		}
		recs = append(recs, m)
	}
	return recs
}

// checkAudit checks the audit log of a login, a peek and a failed call
// made by who: a record for the login with the password masked and one
// for the failed call, none for the read-only peek.
func checkAudit(t *testing.T, recs []map[string]any, who string) {
	t.Helper()
	byTool := map[string][]map[string]any{}
	for _, r := range recs {
		tool, _ := r["tool"].(string)
		byTool[tool] = append(byTool[tool], r)
	}
	if len(byTool["peek"]) != 0 {
		t.Errorf("the read-only tool was audited: %v", byTool["peek"])
	}
	cases := []struct {
		tool, outcome string
		args          map[string]any
	}{
		{"login", "ok", map[string]any{"user": "ann", "password": "(sensitive value)"}},
		{"fail", "error", map[string]any{}},
	}
	for _, c := range cases {
		t.Run("audit "+c.tool, func(t *testing.T) {
			got := byTool[c.tool]
			if len(got) != 1 {
				t.Fatalf("%d audit records of %s, want 1: %v", len(got), c.tool, recs)
			}
			r := got[0]
			if r["subject"] != who || r["outcome"] != c.outcome {
				t.Errorf("record %v: want subject %q and outcome %q", r, who, c.outcome)
			}
			for _, k := range []string{"time", "duration_ms"} {
				if _, ok := r[k]; !ok {
					t.Errorf("record %v has no %s", r, k)
				}
			}
			args, _ := r["arguments"].(map[string]any)
			if len(args) != len(c.args) {
				t.Errorf("arguments %v, want %v", r["arguments"], c.args)
			}
			for k, v := range c.args {
				if args[k] != v {
					t.Errorf("argument %s = %v, want %v", k, args[k], v)
				}
			}
			if c.outcome == "error" && !strings.Contains(r["error"].(string), "broken") {
				t.Errorf("the failed call's record has no error text: %v", r)
			}
		})
	}
	if strings.Contains(fmtRecords(recs), "hunter2") {
		t.Errorf("the audit log shows the sensitive argument: %v", recs)
	}
}

// fmtRecords is recs as JSON, to look for a value anywhere in them.
func fmtRecords(recs []map[string]any) string {
	b, _ := json.Marshal(recs)
	return string(b)
}

// TestLogFormatJSONStdio runs serve over stdio with --log-format json and
// --audit-log: every line of stderr is a JSON record; each call has a
// record with its tool and outcome; a save with errors is logged as one
// record per diagnostic with its file, line and column; the audit log has
// the calls of the tools not marked read-only, the sensitive argument
// masked, as local's.
func TestLogFormatJSONStdio(t *testing.T) {
	cfg := writeConfig(t, auditConfig)
	auditPath := filepath.Join(t.TempDir(), "audit", "calls.jsonl")
	s := startServe(t, "--log-format", "json", "--audit-log", auditPath, cfg)
	s.initialize("2025-06-18")
	s.sendJSON(call(1, "login", map[string]any{"user": "ann", "password": "hunter2"}))
	s.until("the login's answer", isID(1))
	s.sendJSON(call(2, "peek", map[string]any{}))
	s.until("the peek's answer", isID(2))
	s.sendJSON(call(3, "fail", map[string]any{}))
	s.until("the failed call's answer", isID(3))
	writeAtomically(t, cfg, auditConfig+"tool \"broken\" {\n  description = \"no backend\"\n  bogus = 1\n}\n")
	s.until("the notice of the reload's errors", isMethod("notifications/message"))
	stderr := func() string {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.stderr.String()
	}
	testconfig.WaitFor(t, "the reload's diagnostics are logged", func() bool { return strings.Contains(stderr(), `"msg":"config error"`) })
	if err := s.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	recs := jsonRecords(t, stderr())
	brokenLine := float64(strings.Count(auditConfig, "\n") + 1) // of the tool "broken" added
	wants := []struct {
		what, msg string
		want      map[string]any
	}{
		{"the login", "tool call", map[string]any{"tool": "login", "outcome": "ok"}},
		{"the peek", "tool call", map[string]any{"tool": "peek", "outcome": "ok"}},
		{"the failed call", "tool call failed", map[string]any{"tool": "fail", "outcome": "error", "level": "WARN"}},
		{"the reload", "reload failed; the previous tools stay in service", map[string]any{"outcome": "failed", "errors": 2.0}},
		{"the missing backend", "config error", map[string]any{"file": cfg, "line": brokenLine, "col": 1.0, "severity": "error", "summary": "Missing backend block"}},
		{"the unknown argument", "config error", map[string]any{"file": cfg, "line": brokenLine + 2, "col": 3.0, "severity": "error", "summary": "Unsupported argument"}},
	}
	for _, w := range wants {
		t.Run(w.what, func(t *testing.T) {
			r := findRecord(recs, w.msg, w.want)
			if r == nil {
				t.Fatalf("no record %q with %v in:\n%s", w.msg, w.want, stderr())
			}
			if w.msg == "tool call" || w.msg == "tool call failed" {
				if _, ok := r["duration_ms"].(float64); !ok {
					t.Errorf("the record has no duration_ms: %v", r)
				}
			}
		})
	}
	if strings.Contains(stderr(), "hunter2") {
		t.Errorf("the log shows the sensitive argument:\n%s", stderr())
	}
	checkAudit(t, auditRecords(t, auditPath), "local")
}

// TestLogFormatJSONHTTP runs serve --listen with --log-format json and
// --audit-log, for a client with a session (2025-11-25) and one without
// (2026-07-28): the access log's and the calls' records are JSON, and the
// audit log records the calls of a client without a token as anonymous's,
// with the start of its session id when it has one.
func TestLogFormatJSONHTTP(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cfg := writeConfig(t, auditConfig)
			auditPath := filepath.Join(t.TempDir(), "calls.jsonl")
			s := startHTTPServe(t, nil, "--log-format", "json", "--audit-log", auditPath, cfg)
			cs := s.connectAt(false, version, nil)
			if got := toolText(t, cs, "login", map[string]any{"user": "ann", "password": "hunter2"}); !strings.HasPrefix(got, "welcome ann") {
				t.Fatalf("login answered %q", got)
			}
			toolText(t, cs, "peek", map[string]any{})
			if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{}}); err != nil || !res.IsError {
				t.Fatalf("fail answered %v, %v; want an error result", res, err)
			}
			testconfig.WaitFor(t, "the audit log has the two calls", func() bool { return len(auditRecords(t, auditPath)) == 2 })
			testconfig.WaitFor(t, "the failed call is logged", func() bool { return strings.Contains(s.Log(), `"msg":"tool call failed"`) })
			// A request's access log record is written once its handler
			// has returned, which may be after the client has the answer
			// and the later calls' records: it is waited for too.
			testconfig.WaitFor(t, "the access log has a POST /mcp", func() bool {
				for line := range strings.Lines(s.Log()) {
					var r map[string]any
					if json.Unmarshal([]byte(line), &r) == nil && r["msg"] == "http request" && r["method"] == "POST" && r["path"] == "/mcp" && r["status"] == 200.0 {
						return true
					}
				}
				return false
			})
			recs := auditRecords(t, auditPath)
			checkAudit(t, recs, "anonymous")
			log := jsonRecords(t, s.Log())
			if findRecord(log, "http request", map[string]any{"method": "POST", "path": "/mcp", "status": 200.0}) == nil {
				t.Errorf("no access log record of a POST /mcp:\n%s", s.Log())
			}
			login := findRecord(log, "tool call", map[string]any{"tool": "login"})
			// The access log's line of the call; the last POST, before the
			// client's close.
			var access map[string]any
			for _, r := range log {
				if r["msg"] == "http request" && r["method"] == "POST" {
					access = r
				}
			}
			for _, r := range append(recs, login, access) {
				sess, _ := r["session"].(string)
				if cs.ID() == "" && sess != "" || cs.ID() != "" && (sess == "" || !strings.HasPrefix(cs.ID(), strings.TrimSuffix(sess, "..."))) {
					t.Errorf("record %v: want the start of the session id %q", r, cs.ID())
				}
			}
			if runtime.GOOS == "windows" {
				return // no interrupt to send
			}
			// The shutdown's timeout is a duration: timeout_ms, a number.
			if err := s.Cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			<-s.Exited
			if r := findRecord(jsonRecords(t, s.Log()), "shutting down", nil); r == nil || r["timeout_ms"] != 10000.0 {
				t.Errorf("the shutdown's record is %v, want timeout_ms 10000:\n%s", r, s.Log())
			}
		})
	}
}
