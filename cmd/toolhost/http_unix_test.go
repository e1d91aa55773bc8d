//go:build unix

package main

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeHTTPSecondSignal: a second SIGTERM or SIGINT during the
// shutdown grace (a second Ctrl-C) ends it at once: the call still running
// gets an error result saying why, its command's process group is killed,
// and toolhost exits 0, long before --shutdown-timeout. It must not kill
// toolhost outright, which would leave the command running.
//
// A command that ignores its kill_signal is killed then too, without its
// kill_timeout: else the call would still wait for it when the
// connections close, and its answer would be lost.
func TestServeHTTPSecondSignal(t *testing.T) {
	ignoring := `trap '' TERM; sleep 60 & echo $$ $! > "$1.pid"; while :; do sleep 0.05; done`
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		// config returns the config, the tool and the file of its pids.
		config func(t *testing.T) (cfg, tool, pidFile string)
	}{
		{"SIGTERM", syscall.SIGTERM, func(t *testing.T) (string, string, string) {
			cfg, pidFile := hangConfig(t)
			return cfg, "hang", pidFile
		}},
		{"SIGINT", syscall.SIGINT, func(t *testing.T) (string, string, string) {
			cfg, pidFile := hangConfig(t)
			return cfg, "hang", pidFile
		}},
		{"kill_signal ignored", syscall.SIGINT, func(t *testing.T) (string, string, string) {
			cfg, marker := stopConfig(t, ignoring, "1m")
			return cfg, "work", marker + ".pid"
		}},
	} {
		sig := tc.sig
		t.Run(tc.name, func(t *testing.T) {
			cfg, tool, pidFile := tc.config(t)
			s := startHTTPServe(t, nil, "--shutdown-timeout", "60s", "--watch=false", cfg)
			cs := s.connect(false, nil, nil)
			answer := make(chan *mcp.CallToolResult, 1)
			go func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
				if err != nil {
					res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "transport error: " + err.Error()}}}
				}
				answer <- res
			}()
			pids := hangPids(t, pidFile)
			start := time.Now()
			if err := s.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the shutdown starts", func() bool { return strings.Contains(s.log(), "shutting down") })
			if err := s.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case res := <-answer:
				text := ""
				if len(res.Content) > 0 {
					text = res.Content[0].(*mcp.TextContent).Text
				}
				if !res.IsError || !strings.Contains(text, "second signal") {
					t.Fatalf("the call's answer = %q (error %v), want an error result naming the second signal", text, res.IsError)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no answer within 20s of the second signal")
			}
			select {
			case <-s.exited:
				if s.err != nil {
					t.Fatalf("exit: %v", s.err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("toolhost still running 20s after the second signal")
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("the shutdown took %v: the second signal did not cut it short", d)
			}
			if !strings.Contains(s.log(), "second signal") {
				t.Errorf("stderr does not say a second signal stopped the calls")
			}
			for _, pid := range pids {
				waitFor(t, fmt.Sprintf("process %d is gone", pid), func() bool { return processGone(pid) })
			}
		})
	}
}
