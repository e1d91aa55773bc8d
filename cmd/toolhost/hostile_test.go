package main

import (
	"strings"
	"testing"
)

func TestRequestBeforeInitialize(t *testing.T) {
	s := startServe(t, writeConfig(t, testConfig))
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
	resp := s.recv()
	if resp["error"] == nil || resp["id"] != float64(1) {
		t.Fatalf("tools/list before initialize answered %v, want an error", resp)
	}
	// A standard code (the SDK's own is 0), and a message that says what
	// to do.
	if e := resp["error"].(map[string]any); e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "send initialize") {
		t.Errorf("error = %v, want code -32600 saying to send initialize", e)
	}
	if res := s.initialize("2025-06-18")["result"]; res == nil {
		t.Fatal("initialize after the early request failed")
	}
	s.sendJSON(call(2, "hello", map[string]any{"name": "x"}))
	if text, _ := resultText(t, s.recv()); text != "hello x" {
		t.Fatalf("after initialize: %q", text)
	}
}

func TestDuplicateRequestID(t *testing.T) {
	s := startServe(t, writeConfig(t, testConfig))
	s.initialize("2025-06-18")
	s.sendJSON(call(5, "slow", map[string]any{"seconds": 1}))
	s.sendJSON(call(5, "hello", map[string]any{"name": "dup"}))
	first := s.recv()
	if e, ok := first["error"].(map[string]any); !ok || e["code"] != float64(-32600) || first["id"] != float64(5) {
		t.Fatalf("duplicate id answered %v, want -32600", first)
	}
	if text, _ := resultText(t, s.recv()); text != "slept" {
		t.Fatalf("the original request answered %q", text)
	}
}

// TestStdinClosedLetsCallsFinish checks that a client that writes its
// requests and closes stdin still gets the answers of calls that finish
// within the grace period.
func TestStdinClosedLetsCallsFinish(t *testing.T) {
	s := startServe(t, "--watch=false", writeConfig(t, testConfig))
	s.initialize("2025-06-18")
	s.sendJSON(call(1, "slow", map[string]any{"seconds": 0.3}))
	_ = s.stdin.Close()
	m := s.recv()
	if text, isErr := resultText(t, m); isErr || text != "slept" {
		t.Fatalf("answer after stdin closed = %v", m)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("host exited with %v, want status 0", err)
	}
}

// TestStdinClosedStopsLongCalls: a call still running ShutdownGrace after
// the client closed stdin is stopped, and its result says why.
func TestStdinClosedStopsLongCalls(t *testing.T) {
	s := startServe(t, "--watch=false", writeConfig(t, testConfig))
	s.initialize("2025-06-18")
	s.sendJSON(call(1, "slow", map[string]any{"seconds": 30}))
	_ = s.stdin.Close()
	m := s.recv()
	text, isErr := resultText(t, m)
	if !isErr || !strings.Contains(text, "the call was cancelled: the client closed toolhost's stdin") {
		t.Fatalf("answer of a long call after stdin closed = %v", m)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("host exited with %v, want status 0", err)
	}
}
