//go:build unix

package bridge_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/bridge"
	"github.com/toolhost/toolhost/bridge/bridgetest"
)

// TestShutdownSendsResultsOfStubbornCommands: a call cancelled at
// shutdown whose command ignores its kill_signal, with a kill_timeout far
// longer than the bridge waits for results, still sends its result, at
// once, before the connection closes; its command is left to the host
// (WaitCommands, then KillCommands), which kills its process group.
func TestShutdownSendsResultsOfStubbornCommands(t *testing.T) {
	srv, _ := loadServer(t, `
tool "stubborn" {
  description = "ignores SIGTERM"
  param "dir" { type = string }
  exec {
    command      = ["sh", "-c", "trap '' TERM; sleep 60 & echo $$ $! > \"$1/pids\"; while :; do sleep 0.05; done", "stubborn", param.dir]
    timeout      = "5m"
    kill_timeout = "20s"
  }
}
`)
	ts := bridgetest.NewServer(t)
	run := startClient(t, srv, ts, func(c *bridge.Client) { c.ShutdownGrace = 100 * time.Millisecond })
	conn := ts.Accept()
	conn.NextRegister()
	dir := t.TempDir()
	conn.Call("late", "stubborn", map[string]any{"dir": dir})
	pidFile := filepath.Join(dir, "pids")
	var pids []int
	deadline := time.Now().Add(bridgetest.Timeout)
	for len(pids) != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the command did not write its pids")
		}
		time.Sleep(5 * time.Millisecond)
		b, err := os.ReadFile(pidFile)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			continue
		}
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil && n > 0 {
				pids = append(pids, n)
			}
		}
	}
	start := time.Now()
	run.cancel()
	r := conn.NextResult()
	if r.CallID != "late" || r.Result.Success || !strings.Contains(r.Result.Error, "the bridge is stopping") {
		t.Fatalf("cancelled call: %+v", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the result came %v after the stop: it waited for the command", d)
	}
	conn.WaitClosed()
	run.stop(t)
	wait, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if adapters.WaitCommands(wait) {
		t.Error("the command ended within its kill_timeout, though it ignores SIGTERM")
	}
	adapters.KillCommands()
	for _, pid := range pids {
		for deadline := time.Now().Add(bridgetest.Timeout); syscall.Kill(pid, 0) == nil && !zombie(pid); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still runs after KillCommands", pid)
			}
		}
	}
}

// zombie reports whether pid has exited and awaits its reaper.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(b, ')')
	return err == nil && i >= 0 && bytes.HasPrefix(b[i+1:], []byte(" Z"))
}
