//go:build unix

package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/tasks"
	"github.com/toolhost/toolhost/internal/tasks/storetest"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// tasksConfig has a tool of each kind the task tests call, run by real
// commands.
const tasksConfig = `
tool "plain" {
  template {
    text = "plain"
  }
}
tool "quick" {
  task = "optional"
  param "word" {
    type = string
  }
  exec {
    command = ["sh", "-c", "printf 'done %s' \"$1\"", "quick", param.word]
  }
}
tool "fails" {
  task = "optional"
  exec {
    command = ["sh", "-c", "echo 'it broke' >&2; exit 3"]
  }
}
tool "sleeper" {
  task = "required"
  param "pidfile" {
    type = string
  }
  exec {
    command = ["sh", "-c", "echo $$ > \"$1.tmp\" && mv \"$1.tmp\" \"$1\" && exec sleep 60", "sleeper", param.pidfile]
    timeout = "120s"
  }
}
tool "confirmer" {
  task = "optional"
  param "file" {
    type = string
  }
  confirm = "Delete ${param.file}?"
  exec {
    command = ["sh", "-c", "printf 'deleted %s' \"$1\"", "confirmer", param.file]
  }
}
tool "big" {
  task = "optional"
  exec {
    command    = ["sh", "-c", "yes xxxxxxxxxxxxxxx | head -c 5000000"]
    max_output = 8388608
  }
}
tool "leaky" {
  task = "optional"
  exec {
    command = ["sh", "-c", "printf '%s' \"$TOKEN\""]
    env     = { TOKEN = sensitive("tok-SECRET-7654321") }
  }
  result {
    field "n" {
      path = "n"
      type = number
    }
  }
}
`

// sseTaskWire sends requests to a legacy SSE session and reads their
// answers off its stream, one at a time.
type sseTaskWire struct {
	r    *sseReader
	post func(string)
}

func (w sseTaskWire) call(t *testing.T, method string, params map[string]any) (map[string]any, int64, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	w.post(string(body))
	return rpcOutcome(w.r.message(t))
}

// openSSETasks opens a legacy SSE session on e, declaring the tasks
// extension when ext is set.
func openSSETasks(t *testing.T, e *httpEnv, ext bool) sseTaskWire {
	r, post := openSSE(t, e)
	post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":` + initCaps(ext) + `,"clientInfo":{"name":"t","version":"1"}}}`)
	r.message(t)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sseTaskWire{r: r, post: post}
}

// initCaps are the capabilities an initialize declares: elicitation and
// the tasks extension when ext is set, none otherwise.
func initCaps(ext bool) string {
	if !ext {
		return "{}"
	}
	return `{"elicitation":{},"extensions":{"` + tasks.ExtensionID + `":{}}}`
}

// httpSession initializes a session on e, declaring the tasks extension
// when ext is set, and returns the headers of its requests.
func httpSession(t *testing.T, e *httpEnv, ext bool) map[string]string {
	resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+initCaps(ext)+`,"clientInfo":{"name":"t","version":"1"}}}`, nil)
	hdr := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
	httpOutcome(t, "initialize", resp)
	rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	return hdr
}

// startStdioTasks starts a stdio server for src and initializes it,
// declaring the tasks extension when ext is set.
func startStdioTasks(t *testing.T, src string, ext bool, opts ...ServerOption) stdioTaskWire {
	p := startStdio(t, loadHTTPRegistry(t, src), opts...)
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + initCaps(ext) + `,"clientInfo":{"name":"t","version":"1"}}}`)
	if r := p.next(); r.Error != nil {
		t.Fatalf("initialize: %s", r.line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return stdioTaskWire{p: p, id: new(atomic.Int64)}
}

// taskWires are the transports the task tests run over, each with a
// client that declares the extension and one that does not.
func taskWires(t *testing.T, src string, opts ...ServerOption) map[string][2]taskWire {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, src, opts...)
	se := startHTTPConfig(t, HTTPOptions{}, src, opts...)
	return map[string][2]taskWire{
		"http":          {httpTaskWire{e: e, ext: true}, httpTaskWire{e: e}},
		"http sessions": {httpTaskWire{e: se, session: httpSession(t, se, true)}, httpTaskWire{e: se, session: httpSession(t, se, false)}},
		"legacy sse":    {openSSETasks(t, se, true), openSSETasks(t, se, false)},
		"stdio":         {startStdioTasks(t, src, true, opts...), startStdioTasks(t, src, false, opts...)},
	}
}

// mustCreate calls a tool and returns the id of the task it created.
func mustCreate(t *testing.T, w taskWire, tool string, args map[string]any) string {
	t.Helper()
	res, code, msg := w.call(t, "tools/call", map[string]any{"name": tool, "arguments": args})
	if code != 0 || res["resultType"] != "task" {
		t.Fatalf("tools/call %s: %v (error %d %s), want a CreateTaskResult", tool, res, code, msg)
	}
	for _, k := range []string{"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"} {
		if _, ok := res[k]; !ok {
			t.Fatalf("CreateTaskResult without %s: %v", k, res)
		}
	}
	return res["taskId"].(string)
}

// waitTerminal polls tasks/get until the task is terminal and returns it.
func waitTerminal(t *testing.T, w taskWire, id string) map[string]any {
	t.Helper()
	var task map[string]any
	testconfig.WaitFor(t, "task "+id+" finishes", func() bool {
		res, code, msg := w.call(t, "tasks/get", map[string]any{"taskId": id})
		if code != 0 {
			t.Fatalf("tasks/get: %d %s", code, msg)
		}
		task = res
		s, _ := res["status"].(string)
		return tasks.Status(s).Terminal()
	})
	return task
}

// taskText is the text of the first content item of a task's result.
func taskText(task map[string]any) string {
	res, _ := task["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	return text
}

// TestTasks runs tools as tasks over stateless HTTP and stdio, with real
// commands: creation, polling, the result inlined, tool errors, failures,
// cancellation, unknown ids and clients without the extension.
func TestTasks(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, with, without taskWire)
	}{
		{"create, poll, result inlined", func(t *testing.T, with, _ taskWire) {
			task := waitTerminal(t, with, mustCreate(t, with, "quick", map[string]any{"word": "polled"}))
			if task["status"] != "completed" || taskText(task) != "done polled" || task["resultType"] != "complete" {
				t.Fatalf("task %v", task)
			}
			if _, has := task["error"]; has {
				t.Fatalf("completed task with an error: %v", task)
			}
		}},
		{"tool error is completed with isError", func(t *testing.T, with, _ taskWire) {
			task := waitTerminal(t, with, mustCreate(t, with, "fails", nil))
			res, _ := task["result"].(map[string]any)
			if task["status"] != "completed" || res["isError"] != true || !strings.Contains(taskText(task), "it broke") {
				t.Fatalf("task %v", task)
			}
		}},
		{"secrets redacted as in a call", func(t *testing.T, with, _ taskWire) {
			task := waitTerminal(t, with, mustCreate(t, with, "leaky", nil))
			b, _ := json.Marshal(task)
			if task["status"] != "completed" || strings.Contains(string(b), "tok-SECRET-7654321") {
				t.Fatalf("task %s", b)
			}
		}},
		{"result too large for a task fails it", func(t *testing.T, with, _ taskWire) {
			task := waitTerminal(t, with, mustCreate(t, with, "big", nil))
			e, _ := task["error"].(map[string]any)
			if task["status"] != "failed" || e["code"] != float64(-32603) || !strings.Contains(fmt.Sprint(e["message"]), "more than the 4194304 a task keeps") {
				t.Fatalf("task %v", task)
			}
			if _, has := task["result"]; has {
				t.Fatal("failed task with a result")
			}
		}},
		{"sync tool is not a task", func(t *testing.T, with, _ taskWire) {
			res, code, _ := with.call(t, "tools/call", map[string]any{"name": "plain", "arguments": map[string]any{}})
			if code != 0 || res["taskId"] != nil || res["resultType"] == "task" {
				t.Fatalf("plain: %v", res)
			}
		}},
		{"optional tool without the extension runs at once", func(t *testing.T, _, without taskWire) {
			res, code, _ := without.call(t, "tools/call", map[string]any{"name": "quick", "arguments": map[string]any{"word": "now"}})
			if code != 0 || res["taskId"] != nil || !strings.Contains(fmt.Sprint(res["content"]), "done now") {
				t.Fatalf("quick: %v", res)
			}
		}},
		{"required tool without the extension", func(t *testing.T, _, without taskWire) {
			_, code, msg := without.call(t, "tools/call", map[string]any{"name": "sleeper", "arguments": map[string]any{"pidfile": "x"}})
			if code != -32021 || !strings.Contains(msg, "runs only as a task") {
				t.Fatalf("got %d %q, want -32021", code, msg)
			}
		}},
		{"tasks/get without the extension", func(t *testing.T, _, without taskWire) {
			_, code, msg := without.call(t, "tasks/get", map[string]any{"taskId": "any"})
			if code != -32021 || !strings.Contains(msg, tasks.ExtensionID) {
				t.Fatalf("got %d %q, want -32021", code, msg)
			}
		}},
		{"unknown task id", func(t *testing.T, with, _ taskWire) {
			for _, m := range []string{"tasks/get", "tasks/cancel"} {
				_, code, msg := with.call(t, m, map[string]any{"taskId": "no-such-task"})
				if code != -32602 || !strings.Contains(msg, "No task has the id") {
					t.Fatalf("%s: got %d %q, want -32602", m, code, msg)
				}
			}
		}},
		{"removed methods", func(t *testing.T, with, _ taskWire) {
			for _, m := range []string{"tasks/result", "tasks/list"} {
				if _, code, _ := with.call(t, m, map[string]any{"taskId": "x"}); code != -32601 {
					t.Fatalf("%s: got %d, want -32601", m, code)
				}
			}
		}},
		{"a question parks the task until tasks/update answers it", func(t *testing.T, with, _ taskWire) {
			if w, ok := with.(httpTaskWire); ok && w.session == nil {
				t.Skip("a 2026-07-28 client is asked before the task is created (TestTaskAfterMRTR)")
			}
			id := mustCreate(t, with, "confirmer", map[string]any{"file": "a.txt"})
			var task map[string]any
			testconfig.WaitFor(t, "the task asks", func() bool {
				task, _, _ = with.call(t, "tasks/get", map[string]any{"taskId": id})
				return task["status"] == "input_required"
			})
			reqs, _ := task["inputRequests"].(map[string]any)
			if len(reqs) != 1 {
				t.Fatalf("inputRequests %v, want one", task["inputRequests"])
			}
			var key string
			for k, v := range reqs {
				key = k
				if m, _ := v.(map[string]any); m["method"] != "elicitation/create" || !strings.Contains(fmt.Sprint(m["params"]), "Delete a.txt?") {
					t.Fatalf("input request %v", v)
				}
			}
			// An answer to a question not asked is acknowledged and
			// changes nothing.
			if ack, code, _ := with.call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"other": map[string]any{"action": "accept"}}}); code != 0 || ack["resultType"] != "complete" {
				t.Fatalf("update: %v %d", ack, code)
			}
			if got, _, _ := with.call(t, "tasks/get", map[string]any{"taskId": id}); got["status"] != "input_required" {
				t.Fatalf("after an unknown answer: %v", got)
			}
			// An answer that is no elicitation result is refused, and
			// the question stays asked.
			for _, bad := range []any{"yes", map[string]any{"action": "ok"}, map[string]any{"action": "accept", "content": "x"}} {
				if _, code, msg := with.call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{key: bad}}); code != -32602 || !strings.Contains(msg, "tasks/update: the answer to") || strings.Contains(msg, "Go struct") {
					t.Fatalf("update with %v: %d %s, want -32602 saying what an answer is", bad, code, msg)
				}
			}
			if got, _, _ := with.call(t, "tasks/get", map[string]any{"taskId": id}); got["status"] != "input_required" {
				t.Fatalf("after a bad answer: %v", got)
			}
			if _, code, msg := with.call(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{}}}}); code != 0 {
				t.Fatalf("update: %d %s", code, msg)
			}
			if task := waitTerminal(t, with, id); task["status"] != "completed" || taskText(task) != "deleted a.txt" || task["inputRequests"] != nil {
				t.Fatalf("task %v", task)
			}
		}},
		{"cancel kills the command", func(t *testing.T, with, _ taskWire) {
			pidfile := filepath.Join(t.TempDir(), "pid")
			id := mustCreate(t, with, "sleeper", map[string]any{"pidfile": pidfile})
			waitForFile(t, pidfile)
			b, _ := os.ReadFile(pidfile)
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			ack, code, msg := with.call(t, "tasks/cancel", map[string]any{"taskId": id})
			if code != 0 || ack["resultType"] != "complete" || ack["taskId"] != nil {
				t.Fatalf("cancel: %v %d %s", ack, code, msg)
			}
			if task := waitTerminal(t, with, id); task["status"] != "cancelled" {
				t.Fatalf("task %v", task)
			}
			testconfig.WaitFor(t, "the command is gone", func() bool {
				return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
			})
			if ack, code, _ := with.call(t, "tasks/cancel", map[string]any{"taskId": id}); code != 0 || ack["resultType"] != "complete" {
				t.Fatalf("second cancel: %v %d", ack, code)
			}
		}},
	}
	for name, w := range taskWires(t, tasksConfig) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) { tc.run(t, w[0], w[1]) })
			}
		})
	}
}

// TestTaskLimits: a finished task is dropped after its retention time, and
// the caps on tasks kept and on the bytes of their results refuse with
// errors that say which cap and what to do.
func TestTaskLimits(t *testing.T) {
	tests := []struct {
		name   string
		limits tasks.Options
		run    func(t *testing.T, w taskWire, clock *storetest.Clock)
	}{
		{"retention expiry drops a task", tasks.Options{TTL: time.Minute}, func(t *testing.T, w taskWire, clock *storetest.Clock) {
			id := mustCreate(t, w, "quick", map[string]any{"word": "kept"})
			if task := waitTerminal(t, w, id); task["ttlMs"] != float64(60000) {
				t.Fatalf("ttlMs = %v, want 60000", task["ttlMs"])
			}
			clock.Advance(time.Minute - time.Millisecond)
			if _, code, _ := w.call(t, "tasks/get", map[string]any{"taskId": id}); code != 0 {
				t.Fatalf("dropped before its ttl: %d", code)
			}
			clock.Advance(time.Millisecond)
			if _, code, _ := w.call(t, "tasks/get", map[string]any{"taskId": id}); code != -32602 {
				t.Fatalf("after the ttl: %d, want -32602", code)
			}
		}},
		{"task count cap", tasks.Options{MaxTasks: 1}, func(t *testing.T, w taskWire, _ *storetest.Clock) {
			pidfile := filepath.Join(t.TempDir(), "pid")
			id := mustCreate(t, w, "sleeper", map[string]any{"pidfile": pidfile})
			_, code, msg := w.call(t, "tools/call", map[string]any{"name": "quick", "arguments": map[string]any{"word": "x"}})
			if code != -32603 || !strings.Contains(msg, "keeps at most 1 tasks") || !strings.Contains(msg, "try again later") {
				t.Fatalf("second task: %d %q", code, msg)
			}
			waitForFile(t, pidfile)
			_, _, _ = w.call(t, "tasks/cancel", map[string]any{"taskId": id})
			waitTerminal(t, w, id)
		}},
		{"result bytes cap", tasks.Options{MaxResultBytes: 10}, func(t *testing.T, w taskWire, _ *storetest.Clock) {
			task := waitTerminal(t, w, mustCreate(t, w, "quick", map[string]any{"word": "too long to keep"}))
			e, _ := task["error"].(map[string]any)
			if task["status"] != "failed" || !strings.Contains(fmt.Sprint(e["message"]), "past their cap (10 bytes in all)") {
				t.Fatalf("task %v", task)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, transport := range []string{"http", "stdio"} {
				t.Run(transport, func(t *testing.T) {
					clock := storetest.NewClock()
					o := tc.limits
					o.Now = clock.Now
					opt := Tasks(TaskOptions{Store: tasks.NewMemory(o), Limits: o})
					var w taskWire
					if transport == "http" {
						w = httpTaskWire{e: startHTTPConfig(t, HTTPOptions{Stateless: true}, tasksConfig, opt), ext: true}
					} else {
						w = startStdioTasks(t, tasksConfig, true, opt)
					}
					tc.run(t, w, clock)
				})
			}
		})
	}
}

// TestTasksSettledAtShutdown: a task still working when the server shuts
// down is settled as failed with the reason, and its command is stopped.
func TestTasksSettledAtShutdown(t *testing.T) {
	store := tasks.NewMemory(tasks.Options{})
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, tasksConfig, Tasks(TaskOptions{Store: store}))
	w := httpTaskWire{e: e, ext: true}
	pidfile := filepath.Join(t.TempDir(), "pid")
	id := mustCreate(t, w, "sleeper", map[string]any{"pidfile": pidfile})
	waitForFile(t, pidfile)
	e.srv.Shutdown()
	e.srv.SettleTasks(t.Context())
	task, err := store.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if task.Status != tasks.Failed || task.Error == nil || !strings.Contains(task.Error.Message, "The server stopped before the task finished") {
		t.Fatalf("task %+v", task)
	}
	KillCommands()
}

// TestTaskHeaders: over HTTP, the routing headers of tasks/* must agree
// with the body.
func TestTaskHeaders(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, tasksConfig)
	body := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"abc","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"` + tasks.ExtensionID + `":{}}}}}}`
	tests := []struct {
		name string
		hdr  map[string]string
		code float64
	}{
		{"method mismatch", map[string]string{"Mcp-Method": "tools/call"}, -32020},
		{"name mismatch", map[string]string{"Mcp-Method": "tasks/get", "Mcp-Name": "other"}, -32020},
		{"matching", map[string]string{"Mcp-Method": "tasks/get", "Mcp-Name": "abc"}, -32602},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.hdr["Mcp-Protocol-Version"] = "2026-07-28"
			resp := rawPost(t, e.base+"/mcp", body, tc.hdr)
			var m map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&m)
			if e, _ := m["error"].(map[string]any); e["code"] != tc.code {
				t.Fatalf("%s: %v, want code %v", resp.Status, m, tc.code)
			}
			if tc.code == -32020 && resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %s, want 400", resp.Status)
			}
		})
	}
}

// TestTasksAcrossReplicas: two stateless servers sharing one store, as
// replicas behind a load balancer: a task created on one is polled,
// answered and cancelled through the other, and a task whose replica
// stopped renewing its lease is settled as failed by the one left.
func TestTasksAcrossReplicas(t *testing.T) {
	limits := tasks.Options{Lease: 300 * time.Millisecond}
	shared := tasks.NewMemory(limits)
	opt := Tasks(TaskOptions{Store: shared, Limits: limits})
	key := StateKey([]byte(strings.Repeat("k", MinStateKeyLen)))
	a := httpTaskWire{e: startHTTPConfig(t, HTTPOptions{Stateless: true}, tasksConfig, opt, key), ext: true}
	b := httpTaskWire{e: startHTTPConfig(t, HTTPOptions{Stateless: true}, tasksConfig, opt, key), ext: true}

	t.Run("poll on the other replica", func(t *testing.T) {
		task := waitTerminal(t, b, mustCreate(t, a, "quick", map[string]any{"word": "shared"}))
		if task["status"] != "completed" || taskText(task) != "done shared" {
			t.Fatalf("task %v", task)
		}
	})
	t.Run("answer on the other replica", func(t *testing.T) {
		// Asked by one replica (SEP-2322), answered to the other, whose
		// task the first polls.
		args := map[string]any{"file": "b.txt"}
		r1, _, _ := a.call(t, "tools/call", map[string]any{"name": "confirmer", "arguments": args})
		answers := map[string]any{}
		for k := range r1["inputRequests"].(map[string]any) {
			answers[k] = map[string]any{"action": "accept", "content": map[string]any{}}
		}
		r2, code, msg := b.call(t, "tools/call", map[string]any{"name": "confirmer", "arguments": args, "inputResponses": answers, "requestState": r1["requestState"]})
		if code != 0 || r2["resultType"] != "task" {
			t.Fatalf("round 2: %v %d %s", r2, code, msg)
		}
		id := r2["taskId"].(string)
		if task := waitTerminal(t, a, id); task["status"] != "completed" || taskText(task) != "deleted b.txt" {
			t.Fatalf("task %v", task)
		}
	})
	t.Run("cancel on the other replica kills the command", func(t *testing.T) {
		pidfile := filepath.Join(t.TempDir(), "pid")
		id := mustCreate(t, a, "sleeper", map[string]any{"pidfile": pidfile})
		waitForFile(t, pidfile)
		b2, _ := os.ReadFile(pidfile)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b2)))
		if _, code, msg := b.call(t, "tasks/cancel", map[string]any{"taskId": id}); code != 0 {
			t.Fatalf("cancel: %d %s", code, msg)
		}
		if task := waitTerminal(t, b, id); task["status"] != "cancelled" {
			t.Fatalf("task %v", task)
		}
		testconfig.WaitFor(t, "the command is gone", func() bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) })
	})
	t.Run("a replica that stopped renewing", func(t *testing.T) {
		// A task whose owner is gone: its lease runs out, and the
		// replica left reaps it.
		dead := tasks.Task{ID: "orphan", Tool: "sleeper", Owner: "gone", Status: tasks.Working}
		if err := shared.Create(t.Context(), dead); err != nil {
			t.Fatal(err)
		}
		task := waitTerminal(t, b, "orphan")
		e, _ := task["error"].(map[string]any)
		if task["status"] != "failed" || !strings.Contains(fmt.Sprint(e["message"]), "stopped before it finished") {
			t.Fatalf("task %v", task)
		}
	})
}
