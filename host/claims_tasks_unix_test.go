//go:build unix

package host

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// TestClaimsInTasks: a tool run as a task runs for the caller who made
// the call: its claims are the caller's token's, though the task runs
// after the request has been answered.
func TestClaimsInTasks(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	tokens := claimTokens(is)
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, oidcServer(is)+`
tool "slow_whoami" {
  task = "required"
  template {
    text = "task for ${claim("email")}"
  }
}
`)
	for name, want := range map[string]string{"ann": "task for ann@example.com", "bob": "task for bob@example.com"} {
		w := httpTaskWire{e: e, ext: true, token: tokens[name]}
		task := waitTerminal(t, w, mustCreate(t, w, "slow_whoami", map[string]any{}))
		if got := taskText(task); task["status"] != "completed" || !strings.Contains(got, want) {
			t.Errorf("%s: task %v with %q, want completed with %q", name, task["status"], got, want)
		}
	}
}
