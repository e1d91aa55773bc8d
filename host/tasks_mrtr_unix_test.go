//go:build unix

package host

import (
	"strings"
	"testing"
)

// TestTaskAfterMRTR: a 2026-07-28 call of a task tool that asks is asked
// first through the client's round trips, and becomes a task once the
// answers come back with the state; the task's result has the answers.
func TestTaskAfterMRTR(t *testing.T) {
	src := tasksConfig + `
tool "greeter" {
  task = "required"
  ask {
    message = "Your name?"
    field "name" {
      type = string
    }
  }
  exec {
    command = ["sh", "-c", "printf 'hello %s' \"$1\"", "greeter", answer.name]
  }
}
`
	w := httpTaskWire{e: startHTTPConfig(t, HTTPOptions{Stateless: true}, src), ext: true}
	r1, code, msg := w.call(t, "tools/call", map[string]any{"name": "greeter", "arguments": map[string]any{}})
	if code != 0 || r1["resultType"] != "input_required" || r1["taskId"] != nil {
		t.Fatalf("round 1: %v %d %s, want input_required without a task", r1, code, msg)
	}
	answers := map[string]any{}
	for k := range r1["inputRequests"].(map[string]any) {
		answers[k] = map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}
	}
	r2, code, msg := w.call(t, "tools/call", map[string]any{"name": "greeter", "arguments": map[string]any{}, "inputResponses": answers, "requestState": r1["requestState"]})
	if code != 0 || r2["resultType"] != "task" || r2["requestState"] != nil || r2["inputRequests"] != nil {
		t.Fatalf("round 2: %v %d %s, want a CreateTaskResult", r2, code, msg)
	}
	task := waitTerminal(t, w, r2["taskId"].(string))
	if task["status"] != "completed" || !strings.Contains(taskText(task), "hello Alice") {
		t.Fatalf("task %v", task)
	}
}
