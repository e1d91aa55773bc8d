//go:build unix

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestPanicOffTheSDKPath: a panic in a call made outside the SDK's
// handling (a task's run, Server.CallTool for the bridge and the call
// command) fails that call with an internal error; the process goes on.
func TestPanicOffTheSDKPath(t *testing.T) {
	registerPanicker()
	const src = `
tool "boom" {
  task = "optional"
  panicker {}
}
tool "fine" {
  template { text = "still here" }
}
`
	t.Run("task", func(t *testing.T) {
		for name, w := range taskWires(t, src) {
			t.Run(name, func(t *testing.T) {
				task := waitTerminal(t, w[0], mustCreate(t, w[0], "boom", nil))
				failure, _ := task["error"].(map[string]any)
				if task["status"] != "failed" || !strings.Contains(fmt.Sprint(failure["message"]), "internal error while it answered tools/call") {
					t.Fatalf("task %v, want failed with the internal error", task)
				}
				res, code, msg := w[0].call(t, "tools/call", map[string]any{"name": "fine"})
				if code != 0 || fmt.Sprint(res["content"]) != "[map[text:still here type:text]]" {
					t.Fatalf("the next call: %v %d %s", res, code, msg)
				}
			})
		}
	})
	t.Run("Server.CallTool", func(t *testing.T) {
		log := &httpLog{}
		srv := NewServer(loadHTTPRegistry(t, src), slog.New(slog.NewTextHandler(log, nil)))
		_, err := srv.CallTool(context.Background(), "boom", json.RawMessage(`{}`))
		if err == nil || !strings.Contains(err.Error(), "internal error while it answered tools/call") {
			t.Fatalf("calling boom: %v, want the internal error", err)
		}
		res, err := srv.CallTool(context.Background(), "fine", json.RawMessage(`{}`))
		if err != nil || res.IsError {
			t.Fatalf("the next call: %v %+v", err, res)
		}
		if !strings.Contains(log.String(), "a bug the caller's values reached") {
			t.Errorf("the log has no panic:\n%s", log)
		}
	})
}
