package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/bridge/bridgetest"
)

// TestBridgeLogFile runs the bridge with --log-file at debug: the file
// gets the calls read and their outcomes, with the sensitive argument
// masked, and the error text of a call that failed.
func TestBridgeLogFile(t *testing.T) {
	const secret = "hunter2-correct-horse"
	cfg := writeConfig(t, logFileConfig)
	logPath := filepath.Join(t.TempDir(), "new", "bridge.log")
	ts := bridgetest.NewServer(t)
	p := startBridge(t, "--connect", ts.Addr, "--watch=false", "--log-level", "debug", "--log-file", logPath, cfg)
	conn := ts.Accept()
	conn.NextRegister()
	conn.Call("c1", "login", map[string]any{"user": "ann", "password": secret})
	if r := conn.NextResult(); !r.Result.Success {
		t.Fatalf("login: %s", r.Result.Error)
	}
	conn.Call("c2", "fail", map[string]any{})
	if r := conn.NextResult(); r.Result.Success {
		t.Fatal("fail succeeded")
	}
	p.stop(t)
	conn.WaitClosed()

	log := readLog(t, logPath)
	if strings.Contains(log, secret) {
		t.Errorf("the log shows the sensitive argument:\n%s", log)
	}
	checkLog(t, log, []logWant{
		{"the start", "bridging to a framed-protocol server", nil},
		{"the call read", "frame in", []string{"call_id=c1", "method=login", `\"password\":\"(sensitive value)\"`}},
		{"its outcome", "frame out", []string{"call_id=c1", "your password is (redacted)"}},
		{"the tool call", "tool call", []string{"tool=login", "welcome ann"}},
		{"the failed call", "tool call failed", []string{"tool=fail", "broken"}},
		{"the stop", "bridge stopped", nil},
	})
}
