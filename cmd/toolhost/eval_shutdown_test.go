package main

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestShutdownAnswersSlowEvaluation: a template call stuck in one slow
// function call (setintersection of a set of long lists, with the largest
// timeout) is answered when toolhost receives SIGTERM, or when the
// client closes stdin, and toolhost exits soon after, without waiting for
// the function to end.
func TestShutdownAnswersSlowEvaluation(t *testing.T) {
	cfg := writeConfig(t, `
tool "slow" {
  description = "a slow function"
  param "x" { type = string }
  template {
    text       = "${length(setintersection([for s in split(",", param.x) : [s, "1", "2", "3", "4", "5", "6", "0", "1", "2", "3", "4", "5", "6", "0", "1", "2", "3", "4", "5", "6", "0", "1", "2", "3", "4", "5", "6", "0", "1", "2", "3", "4", "5", "6", "0", "1", "2", "3", "4"]], [for s in split(",", param.x) : [s, "1", "2", "3", "4", "5", "6", "0", "1", "2", "3", "4", "5", "6", "0", "1", "2", "3", "4", "5", "6", "0", "1", "2", "3", "4", "5", "6", "0", "1", "2", "3", "4", "5", "6", "0", "1", "2", "3", "4"]]))}"
    timeout    = "60s"
    max_output = 16777216
  }
}
`)
	// Elements that cost cty much to compare, as many as a set may have,
	// built from one string: the arguments of a call hold at most
	// MaxArgValues values.
	ids := make([]string, 30000)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	mixed := strings.Join(ids, ",")
	for _, tc := range []struct {
		name   string
		stop   func(s *session)
		answer string
	}{
		{stopSignalName, func(s *session) { sendStop(s.t, s.cmd) }, "toolhost received a stop signal (" + stopSignalName + ")"},
		{"stdin closed", func(s *session) { _ = s.stdin.Close() }, "the client closed toolhost's stdin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServe(t, "--watch=false", cfg)
			s.initialize("2025-06-18")
			s.sendJSON(call(1, "slow", map[string]any{"x": mixed}))
			time.Sleep(time.Second)
			start := time.Now()
			tc.stop(s)
			var answers int
			for line := range s.lines {
				var m map[string]any
				if err := jsonUnmarshal(line, &m); err != nil {
					t.Fatalf("stdout carried a line that is not JSON: %q", line)
				}
				answers++
				text, isErr := resultText(t, m)
				if !isErr || !strings.Contains(text, tc.answer) {
					t.Errorf("answer %q (isError %v), want an error that says %q", text, isErr, tc.answer)
				}
			}
			if answers != 1 {
				t.Errorf("%d answers, want 1", answers)
			}
			exited := make(chan error, 1)
			go func() { exited <- s.cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("toolhost exited with %v, want status 0", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("toolhost still running 10s after being told to stop")
			}
			t.Logf("exited %v after the stop", time.Since(start).Round(time.Millisecond))
		})
	}
}
