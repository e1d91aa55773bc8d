//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestReloadRunningCallFinishes removes a tool while a call of it runs: the
// call finishes on the definition it started with, and new calls see the
// new config.
func TestReloadRunningCallFinishes(t *testing.T) {
	// The command says it has started, then waits for the test to let it
	// finish: the call runs across the reload whatever the machine's load
	// (a fixed sleep could end before a slow reload, and its answer then
	// came before the ones the test waits for first).
	gate := t.TempDir()
	started, finish := filepath.Join(gate, "started"), filepath.Join(gate, "finish")
	slow := fmt.Sprintf(`tool "slow" {
  description = "waits"
  exec {
    command = ["sh", "-c", "touch '%s'; while [ ! -e '%s' ]; do sleep 0.02; done; printf done"]
    timeout = "60s"
  }
}
`, started, finish)
	cfg := writeConfig(t, slow+toolConfig("alpha"))
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.sendJSON(call(1, "slow", nil))
	testconfig.WaitFor(t, "the call's command to start", func() bool { _, err := os.Stat(started); return err == nil })
	writeAtomically(t, cfg, toolConfig("alpha"))
	s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
	s.sendJSON(call(2, "slow", nil))
	if resp := s.until("call after the reload", isID(2)); resp["error"] == nil {
		t.Fatalf("slow is still callable after it was removed: %v", resp)
	}
	if err := os.WriteFile(finish, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if text, isErr := resultText(t, s.until("the running call", isID(1))); text != "done" || isErr {
		t.Fatalf("the call running across the reload answered %q (isError %v)", text, isErr)
	}
}
