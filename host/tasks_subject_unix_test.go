//go:build unix

package host

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// TestTaskSubject: a task is its creator's: a caller with a token of
// another subject gets from tasks/get, tasks/cancel and tasks/update the
// answer of an unknown id, not the task's result or control.
func TestTaskSubject(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, authServer(is)+`
tool "whoami" {
  task = "required"
  template { text = "task for ${claim("email")}" }
}
`)
	token := func(sub string) string {
		return is.Mint(testoidc.Token{Claims: is.Claims(sub, map[string]any{"email": sub + "@example.com"})})
	}
	ann := httpTaskWire{e: e, ext: true, token: token("ann")}
	bob := httpTaskWire{e: e, ext: true, token: token("bob")}
	id := mustCreate(t, ann, "whoami", map[string]any{})
	if task := waitTerminal(t, ann, id); !strings.Contains(taskText(task), "ann@example.com") {
		t.Fatalf("ann's task: %v", task)
	}
	for _, method := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
		t.Run(method, func(t *testing.T) {
			res, code, msg := bob.call(t, method, map[string]any{"taskId": id, "inputResponses": map[string]any{}})
			if code == 0 || !strings.Contains(msg, "No task has the id") {
				t.Fatalf("bob's %s of ann's task: %v (error %d %s), want the error of an unknown id", method, res, code, msg)
			}
		})
	}
	if task := waitTerminal(t, ann, id); task["status"] != "completed" {
		t.Fatalf("ann's task after bob's tries: %v", task)
	}
}
