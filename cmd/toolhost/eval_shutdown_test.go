package main

import (
	"strings"
	"syscall"
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
  param "x" { type = any }
  template {
    text    = "${length(setintersection(param.x, param.x))}"
    timeout = "60s"
  }
}
`)
	// Elements that cost cty much to compare, as many as a set may have.
	mixed := make([]any, 30000)
	for i := range mixed {
		el := make([]any, 40)
		for j := range el {
			el[j] = i % 7
		}
		el[0] = i
		mixed[i] = el
	}
	for _, tc := range []struct {
		name   string
		stop   func(s *session)
		answer string
	}{
		{"SIGTERM", func(s *session) { _ = s.cmd.Process.Signal(syscall.SIGTERM) }, "toolhost received a stop signal (SIGTERM)"},
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
