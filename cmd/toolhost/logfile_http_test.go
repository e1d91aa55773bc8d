package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rpcSessionRE finds the session ids the rpc lines show, less the "..."
// after a cut one.
var rpcSessionRE = regexp.MustCompile(`msg="rpc (?:in|out)" method=\S+ session=([^. ]+)`)

// TestLogFileHTTP: over streamable HTTP and over SSE, serve --log-file at
// debug logs each session's messages both ways, the sensitive argument
// masked, and sessions (SSE's) by the start of their id only.
func TestLogFileHTTP(t *testing.T) {
	const secret = "hunter2-correct-horse"
	cfg := writeConfig(t, logFileConfig)
	logPath := filepath.Join(t.TempDir(), "http", "toolhost.log")
	s := startHTTPServe(t, nil, "--log-level", "debug", "--log-file", logPath, "--watch=false", cfg)
	for _, tc := range []struct {
		name    string
		sse     bool
		session string // what the lines of a session show
	}{
		// The client speaks 2026-07-28 over streamable HTTP: no session.
		{"streamable HTTP", false, "method=tools/call"},
		{"SSE", true, "session="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := s.connect(tc.sse, nil, nil)
			user := strings.ReplaceAll(tc.name, " ", "-")
			if text := toolText(t, cs, "login", map[string]any{"user": user, "password": secret}); !strings.Contains(text, secret) {
				t.Fatalf("login answered %q", text)
			}
			b, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			log := string(b)
			if strings.Contains(log, secret) {
				t.Errorf("the log shows the sensitive argument:\n%s", log)
			}
			for _, m := range rpcSessionRE.FindAllStringSubmatch(log, -1) {
				if len(m[1]) > 8 {
					t.Errorf("an rpc line shows more of a session id than its start: %s", m[0])
				}
			}
			checkLog(t, log, []logWant{
				{"the call", "rpc in", []string{"method=tools/call", tc.session, `\"user\":\"` + user + `\"`, `\"password\":\"(sensitive value)\"`}},
				{"the answer", "rpc out", []string{"method=tools/call", tc.session, "welcome " + user + ", your password is (redacted)"}},
			})
		})
	}
}
