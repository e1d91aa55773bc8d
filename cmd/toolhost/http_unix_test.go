//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
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
			if err := s.Cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			testconfig.WaitFor(t, "the shutdown starts", func() bool { return strings.Contains(s.Log(), "shutting down") })
			if err := s.Cmd.Process.Signal(sig); err != nil {
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
			case <-s.Exited:
				if s.Err != nil {
					t.Fatalf("exit: %v", s.Err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("toolhost still running 20s after the second signal")
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("the shutdown took %v: the second signal did not cut it short", d)
			}
			if !strings.Contains(s.Log(), "second signal") {
				t.Errorf("stderr does not say a second signal stopped the calls")
			}
			for _, pid := range pids {
				testconfig.WaitFor(t, fmt.Sprintf("process %d is gone", pid), func() bool { return processGone(pid) })
			}
		})
	}
}

// TestServeHTTPProtocolEdges: the binary over real HTTP: a call cancelled
// with notifications/cancelled gets no late result on its stream; a request
// without Mcp-Session-Id gets 400 with a JSON-RPC error; a chunked body
// over the limit is refused naming --max-message-size.
func TestServeHTTPProtocolEdges(t *testing.T) {
	const config = `
server {
  name    = "edges"
  version = "1.0.0"
}
tool "marker" {
  description = "touches DIR/started, sleeps, then touches DIR/marker"
  param "dir" {
    type = string
  }
  exec {
    command = ["sh", "-c", "touch \"$1/started\"; sleep 30; touch \"$1/marker\"; echo finished", "marker", param.dir]
    timeout = "60s"
  }
}
`
	for _, tc := range []struct {
		name string
		args []string
		run  func(t *testing.T, s *httpServe)
	}{
		{name: "cancelled call gets no result", run: func(t *testing.T, s *httpServe) {
			init := s.mcpPost(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil, false)
			readToEnd(t, init.Body)
			hdr := map[string]string{"Mcp-Session-Id": init.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-06-18"}
			s.mcpPost(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr, false)
			dir := t.TempDir()
			// A 2025-06-18 stream has no priming event: the response's
			// headers come with its first event, so the call is posted
			// while the test goes on.
			body := make(chan string, 1)
			go func() {
				req, _ := http.NewRequest(http.MethodPost, s.Base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":55,"method":"tools/call","params":{"name":"marker","arguments":{"dir":`+strconv.Quote(dir)+`}}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				for k, v := range hdr {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					body <- "error: " + err.Error()
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				body <- resp.Status + "\n" + string(b)
			}()
			testconfig.WaitFor(t, "the backend started", func() bool {
				_, err := os.Stat(dir + "/started")
				return err == nil
			})
			if c := s.mcpPost(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":55}}`, hdr, false); c.StatusCode != http.StatusAccepted {
				t.Fatalf("notifications/cancelled: %s", c.Status)
			}
			select {
			case b := <-body:
				if !strings.HasPrefix(b, "200 OK\n") || strings.Contains(b, `"id":55`) {
					t.Fatalf("the cancelled call's POST: %s; want 200 and a stream that ends without a response", b)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("the cancelled call's stream did not end")
			}
			testconfig.WaitFor(t, "the cancelled call ended", func() bool { return s.inFlight() == 0 })
			if _, err := os.Stat(dir + "/marker"); err == nil {
				t.Fatal("the backend ran to its end: it was not killed")
			}
		}},
		{name: "request without session", run: func(t *testing.T, s *httpServe) {
			resp := s.mcpPost(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, nil, false)
			body := readToEnd(t, resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"id":3`) || !strings.Contains(body, `"code":-32600`) ||
				!strings.Contains(body, "send initialize first") {
				t.Fatalf("%s %s: want 400 with a JSON-RPC error (-32600, id 3) saying to initialize first", resp.Status, body)
			}
		}},
		{name: "chunked body over the limit", args: []string{"--max-message-size", "1000"}, run: func(t *testing.T, s *httpServe) {
			big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"x":"` + strings.Repeat("x", 2000) + `"}}}`
			resp := s.mcpPost(big, map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, true)
			body := readToEnd(t, resp.Body)
			if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "--max-message-size") {
				t.Fatalf("%s %q: want 413 naming --max-message-size", resp.Status, body)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startHTTPServe(t, nil, append(tc.args, writeConfig(t, config))...)
			tc.run(t, s)
		})
	}
}
