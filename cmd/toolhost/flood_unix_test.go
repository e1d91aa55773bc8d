//go:build unix

package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNotificationFloods runs over stdio tools whose commands flood
// stderr, and counts the notifications on stdout before each reply: 200,000
// log lines at stderr_log = "info" give at most LogBurst (100) and then
// LogRate (20) a second, and a line that counts the rest; 20,000 progress
// lines give at most 5 at once and then one every 100 ms, and the last
// value. Each line once
// became a notification.
func TestNotificationFloods(t *testing.T) {
	cfg := writeConfig(t, `
tool "log_flood" {
  exec {
    command    = ["sh", "-c", "yes 'a line of stderr' | head -n 200000 >&2; echo done"]
    stderr_log = "info"
  }
}
tool "progress_flood" {
  exec {
    command = ["sh", "-c", "i=1; while [ $i -le 20000 ]; do echo \"::progress $i/20000\" >&2; i=$((i+1)); done; echo done"]
  }
}
`)
	s := startServe(t, "--watch=false", cfg)
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`)
	s.until("the answer to logging/setLevel", isID(1))

	t.Run("log", func(t *testing.T) {
		start := time.Now()
		s.sendJSON(call(2, "log_flood", nil))
		var lines, counts int
		var count string
		reply := s.until("the reply", func(m map[string]any) bool {
			if m["method"] == "notifications/message" {
				data := fmt.Sprint(m["params"].(map[string]any)["data"])
				switch {
				case data == "a line of stderr":
					lines++
				case strings.Contains(data, "log lines dropped: more than 20 per second"):
					counts++
					count = data
				}
			}
			return isID(2)(m)
		})
		elapsed := time.Since(start)
		if text, isErr := resultText(t, reply); isErr || text != "done\n" {
			t.Fatalf("reply %q, error %v", text, isErr)
		}
		if max := 100 + int(elapsed.Seconds()*20) + 1; lines > max || lines < 100 {
			t.Errorf("%d log notifications in %v, want 100 to %d", lines, elapsed, max)
		}
		if want := fmt.Sprintf("%d log lines dropped", 200000-lines); counts != 1 || !strings.HasPrefix(count, want) {
			t.Errorf("%d counts of dropped lines, the last %q; want one that starts %q", counts, count, want)
		}
	})

	t.Run("progress", func(t *testing.T) {
		start := time.Now()
		s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{
			"name": "progress_flood", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "p"},
		}})
		var values []float64
		reply := s.until("the reply", func(m map[string]any) bool {
			if m["method"] == "notifications/progress" {
				values = append(values, m["params"].(map[string]any)["progress"].(float64))
			}
			return isID(3)(m)
		})
		elapsed := time.Since(start)
		if text, isErr := resultText(t, reply); isErr || text != "done\n" {
			t.Fatalf("reply %q, error %v", text, isErr)
		}
		// The burst of 5, one every 100 ms, the last at the end, and the
		// heartbeat's before the first report.
		if max := int(elapsed/(100*time.Millisecond)) + 5 + 2 + int(elapsed/time.Second); len(values) > max {
			t.Errorf("%d progress notifications in %v, want at most %d", len(values), elapsed, max)
		}
		if len(values) == 0 || values[len(values)-1] != 20000 {
			t.Errorf("progress values %v, want the last to be 20000", values)
		}
	})
}
