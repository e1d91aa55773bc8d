package host

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	ident "github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/tasks"
)

// wireTask is a task's fields on the wire (SEP-2663's Task).
type wireTask struct {
	TaskID         string       `json:"taskId"`
	Status         tasks.Status `json:"status"`
	StatusMessage  string       `json:"statusMessage,omitempty"`
	CreatedAt      string       `json:"createdAt"`
	LastUpdatedAt  string       `json:"lastUpdatedAt"`
	TTLMs          int64        `json:"ttlMs"`
	PollIntervalMs int64        `json:"pollIntervalMs,omitempty"`
}

// createTaskResult is the answer to a tools/call that became a task: the
// task's fields flat beside resultType "task".
type createTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	wireTask
}

// detailedTask is the answer to tasks/get: the task with its result (once
// completed), error (once failed) or input requests.
type detailedTask struct {
	ResultType string `json:"resultType"`
	wireTask
	Result        json.RawMessage `json:"result,omitempty"`
	Error         *tasks.Error    `json:"error,omitempty"`
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
}

// completeAck is the answer to tasks/cancel and tasks/update.
type completeAck struct {
	ResultType string `json:"resultType"`
}

// wire renders t's fields for clients.
func (th *taskHost) wire(t tasks.Task) wireTask {
	return wireTask{
		TaskID:         t.ID,
		Status:         t.Status,
		StatusMessage:  t.StatusMessage,
		CreatedAt:      t.CreatedAt.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt:  t.LastUpdatedAt.UTC().Format(time.RFC3339Nano),
		TTLMs:          th.limits.TTL.Milliseconds(),
		PollIntervalMs: taskPollInterval.Milliseconds(),
	}
}

// isTaskMethod reports whether toolhost answers method itself, outside the
// SDK (which refuses methods it does not know before any middleware).
// tasks/result and tasks/list, removed by SEP-2663, are left to the SDK,
// which answers them as methods not found.
func isTaskMethod(method string) bool {
	return method == "tasks/get" || method == "tasks/cancel" || method == "tasks/update"
}

// taskParams are the params of tasks/get, tasks/cancel and tasks/update.
type taskParams struct {
	TaskID string         `json:"taskId"`
	Meta   map[string]any `json:"_meta"`
}

// metaHasTasks reports whether a request's _meta declares the tasks
// extension among the client's capabilities (2026-07-28).
func metaHasTasks(meta map[string]any) bool {
	caps, _ := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext[tasks.ExtensionID]
	return ok
}

// taskMethod answers tasks/get, tasks/cancel or tasks/update. sessionHas
// tells whether the client declared the tasks extension at initialize (a
// request's own _meta counts too). The result is the JSON of the answer's
// result; an error is a *jsonrpc.Error.
func (s *Server) taskMethod(ctx context.Context, method string, params json.RawMessage, sessionHas bool) (json.RawMessage, *jsonrpc.Error) {
	var p taskParams
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + " takes params {\"taskId\": \"...\"}, the id of a task that tools/call created."}
	}
	if !sessionHas && !metaHasTasks(p.Meta) {
		return nil, missingTasks(method + " needs the tasks extension: declare " + tasks.ExtensionID + " in the client's capabilities.")
	}
	if p.TaskID == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + " needs taskId, the id of a task that tools/call created."}
	}
	th := s.tasks
	if err := th.checkSubject(ctx, p.TaskID); err != nil {
		return nil, err
	}
	var out any
	switch method {
	case "tasks/get":
		t, err := th.store.Get(ctx, p.TaskID)
		if err == nil && !t.Status.Terminal() && th.limits.Now().After(t.LeaseExpires) {
			// Its replica stopped renewing the lease: settled now, by
			// whichever replica is asked, rather than at the next reap.
			if _, rerr := th.store.Reap(ctx); rerr == nil {
				t, err = th.store.Get(ctx, p.TaskID)
			}
		}
		if err != nil {
			return nil, th.lookupError(p.TaskID, err)
		}
		d := detailedTask{ResultType: "complete", wireTask: th.wire(t), Error: t.Error}
		switch t.Status {
		case tasks.Completed:
			d.Result = t.Result
		case tasks.InputRequired:
			d.InputRequests = t.InputRequests
		}
		out = d
	case "tasks/cancel":
		if _, err := th.cancel(ctx, p.TaskID); err != nil {
			return nil, th.lookupError(p.TaskID, err)
		}
		out = completeAck{ResultType: "complete"}
	case "tasks/update":
		if err := th.update(ctx, p.TaskID, params); err != nil {
			return nil, err
		}
		out = completeAck{ResultType: "complete"}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return b, nil
}

// missingTasksCapability is the data of the -32021 error of a request that
// needs the tasks extension from a client that did not declare it: the
// capabilities it needs, and (for clients that read one name) the
// extension's.
var missingTasksCapability = map[string]any{
	"requiredCapabilities": map[string]any{"extensions": map[string]any{tasks.ExtensionID: map[string]any{}}},
	"capability":           tasks.ExtensionID,
}

// missingTasks is the -32021 error, with message and the data of
// missingTasksCapability, of a request that needs the tasks extension
// from a client that did not declare it.
func missingTasks(message string) *jsonrpc.Error {
	data, _ := json.Marshal(missingTasksCapability)
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: message, Data: data}
}

// lookupError is the error of a tasks/* request for a task the store
// cannot give.
func (th *taskHost) lookupError(id string, err error) *jsonrpc.Error {
	if errors.Is(err, tasks.ErrNotFound) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "No task has the id " + shortName(id) + ": it was never created here, or it finished and was dropped after its ttlMs."}
	}
	return th.storeError("the task could not be read", err)
}

// checkSubject refuses a task that a call of another subject created
// (see tasks.Task.Subject) as if it did not exist, so that a task's id,
// seen in a log or guessed, gives no other caller its result or its
// control.
func (th *taskHost) checkSubject(ctx context.Context, id string) *jsonrpc.Error {
	t, err := th.store.Get(ctx, id)
	if err != nil {
		return th.lookupError(id, err)
	}
	if t.Subject == "" {
		return nil
	}
	if c := ident.FromContext(ctx); c == nil || c.Subject != t.Subject {
		return th.lookupError(id, tasks.ErrNotFound)
	}
	return nil
}

// storeError is the error a client gets when the task store fails: what
// could not be done, and to try again. Why it failed (a store's address,
// its own words) goes to the server's log only.
func (th *taskHost) storeError(what string, err error) *jsonrpc.Error {
	th.s.logger.Warn("the task store failed", "doing", what, "error", err)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "The task store is unavailable, so " + what + "; try again later (the server's log says why)."}
}

// taskTool is a tool as tools/list shows it, with its task support.
type taskTool struct {
	*mcp.Tool
	Execution *toolExecution `json:"execution,omitempty"`
}

// toolExecution is a tool's execution field: how its calls may run.
type toolExecution struct {
	TaskSupport string `json:"taskSupport"`
}

// taskToolList is a tools/list result whose tools show their task support.
type taskToolList struct {
	*mcp.ListToolsResult
	Tools []taskTool `json:"tools"`
}

// withTaskSupport adds execution.taskSupport to the tools of a tools/list
// result that have task support; a result without any is returned as it
// is, so that tools/list costs nothing more for configs without tasks.
func (r *Registry) withTaskSupport(res mcp.Result) mcp.Result {
	list, ok := res.(*mcp.ListToolsResult)
	if !ok || list == nil || !r.hasTaskTools {
		return res
	}
	out := &taskToolList{ListToolsResult: list, Tools: make([]taskTool, len(list.Tools))}
	for i, t := range list.Tools {
		out.Tools[i] = r.taskTool(t)
	}
	return out
}

// ListedTool is t as tools/list shows it: with execution.taskSupport when
// the tool has task support (inspect --json shows tools so).
func (r *Registry) ListedTool(t *mcp.Tool) any { return r.taskTool(t) }

// taskTool is t with its task support, when it has one.
func (r *Registry) taskTool(t *mcp.Tool) taskTool {
	tt := taskTool{Tool: t}
	if def := r.tools[t.Name]; def != nil && def.Task != "" {
		tt.Execution = &toolExecution{TaskSupport: def.Task}
	}
	return tt
}
