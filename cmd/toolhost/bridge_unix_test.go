//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/bridge/bridgetest"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestBridgeStopLetsCallsFinish: on SIGTERM a call already running still
// finishes and its result is sent before the bridge exits (it has
// bridge.DefaultShutdownGrace for that).
func TestBridgeStopLetsCallsFinish(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "started")
	cfg := writeConfig(t, fmt.Sprintf(`
tool "slow" {
  description = "takes a while"
  exec {
    command = ["sh", "-c", "touch %s; sleep 0.5; echo finished"]
  }
}
`, mark))
	ts := bridgetest.NewServer(t)
	p := startBridge(t, "--connect", ts.Addr, "--watch=false", cfg)
	conn := ts.Accept()
	conn.NextRegister()
	conn.Call("c1", "slow", nil)
	testconfig.WaitFor(t, "the command is running", func() bool {
		_, err := os.Stat(mark)
		return err == nil
	})
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := conn.NextResult()
	if !r.Result.Success || strings.TrimSpace(r.Text(t)) != "finished" {
		t.Fatalf("result of the call running at SIGTERM: %+v", r)
	}
	p.waitExit(t)
}

// TestBridgeStopKillsCommands: a command that ignores its kill_signal
// does not hold the bridge past its bounds, however long its
// kill_timeout: on SIGTERM calls get bridge.DefaultShutdownGrace, then
// are cancelled and have a moment to send their results; a second SIGTERM
// ends that grace. What is left is then killed, with what it started.
func TestBridgeStopKillsCommands(t *testing.T) {
	tests := []struct {
		name  string
		twice bool
		bound time.Duration // how soon the bridge must exit after the first SIGTERM
	}{
		{"one signal", false, 20 * time.Second}, // 5 s grace, 2 s for results
		{"two signals", true, 12 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, marker := stopConfig(t, `trap '' TERM; sleep 60 & echo $$ $! > "$1.pid"; while :; do sleep 0.05; done`, "1m")
			ts := bridgetest.NewServer(t)
			p := startBridge(t, "--connect", ts.Addr, "--watch=false", cfg)
			conn := ts.Accept()
			conn.NextRegister()
			conn.Call("c1", "work", nil)
			pids := hangPids(t, marker+".pid")
			start := time.Now()
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if tc.twice {
				time.Sleep(300 * time.Millisecond)
				if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case err := <-p.done:
				p.done <- err
				if err != nil {
					t.Errorf("bridge exited with %v", err)
				}
			case <-time.After(tc.bound):
				t.Fatalf("bridge still running %s after SIGTERM: its command's kill_timeout (1m) holds it", tc.bound)
			}
			t.Logf("bridge exited %v after SIGTERM", time.Since(start).Round(time.Millisecond))
			checkStopped(t, marker, "", pids)
		})
	}
}
