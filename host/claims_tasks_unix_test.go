//go:build unix

package host

import (
	"strings"
	"testing"
)

// TestClaimsInTasks: a tool run as a task runs for the caller who made
// the call: its claims are the caller's token's, though the task runs
// after the request has been answered.
func TestClaimsInTasks(t *testing.T) {
	reg := loadHTTPRegistry(t, claimsAuth+`
tool "slow_whoami" {
  task = "required"
  template {
    text = "task for ${claim("email")}"
  }
}
`)
	e := startHTTPWrapped(t, HTTPOptions{Stateless: true}, reg, withTestCallers)
	for token, want := range map[string]string{"token-ann": "task for ann@example.com", "token-bob": "task for bob@example.com"} {
		w := httpTaskWire{e: e, ext: true, token: token}
		task := waitTerminal(t, w, mustCreate(t, w, "slow_whoami", map[string]any{}))
		if got := taskText(task); task["status"] != "completed" || !strings.Contains(got, want) {
			t.Errorf("%s: task %v with %q, want completed with %q", token, task["status"], got, want)
		}
	}
}
