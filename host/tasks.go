package host

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	ident "github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/tasks"
)

// Limits of tasks (see SECURITY.md): the store's own caps (tasks.Options:
// the number of tasks kept and the bytes of their results) and these.
const (
	// MaxTaskResultBytes is the largest result, as JSON, one task keeps: a
	// larger one fails the task, since it is held for the retention time.
	MaxTaskResultBytes = 4 << 20
	// taskPollInterval is the pollIntervalMs a task suggests to clients.
	taskPollInterval = 500 * time.Millisecond
)

// TaskOptions are the settings of the tasks a server runs.
type TaskOptions struct {
	// Store keeps the tasks; nil is a new in-memory store with Limits.
	Store tasks.Store
	// Limits are the store's limits (for ttlMs and the lease); zero
	// fields take the defaults of tasks.Options.
	Limits tasks.Options
}

// Tasks gives NewServer the store and limits of the tasks it runs; without
// it a server keeps its tasks in memory with the default limits.
func Tasks(o TaskOptions) ServerOption {
	return func(so *serverOptions) { so.tasks = &o }
}

// taskHost runs the calls of tools with task support as tasks: it creates
// each in the store, runs it on a goroutine of its own with a context that
// outlives the request (ended by tasks/cancel, the run limit or Shutdown),
// and settles it with the tool's result or the reason it failed.
type taskHost struct {
	s      *Server
	store  tasks.Store
	limits tasks.Options
	// owner is this process's id in the store: its tasks' Owner.
	owner string
	// runLimit is how long a task may run (the HTTP request timeout);
	// 0 is no limit.
	runLimit atomic.Int64

	mu      sync.Mutex
	running map[string]context.CancelCauseFunc
	// waiting holds, by task, the channel a task waiting for an answer
	// to its question is woken by (see taskPeer).
	waiting map[string]chan struct{}
	wg      sync.WaitGroup
	loop    sync.Once
}

// newTaskHost makes the task host of s from o (nil: the defaults).
func newTaskHost(s *Server, o *TaskOptions) *taskHost {
	if o == nil {
		o = &TaskOptions{}
	}
	limits := o.Limits.WithDefaults()
	store := o.Store
	if store == nil {
		store = tasks.NewMemory(limits)
	}
	return &taskHost{s: s, store: store, limits: limits, owner: "toolhost-" + rand.Text()[:10], running: map[string]context.CancelCauseFunc{}, waiting: map[string]chan struct{}{}}
}

// SetTaskRunLimit sets how long a task may run before it is stopped and
// settled as failed; 0 or less is no limit. The HTTP front end sets its
// request timeout.
func (s *Server) SetTaskRunLimit(d time.Duration) { s.tasks.runLimit.Store(int64(max(d, 0))) }

// Errors that end a task's context, told apart when it is settled.
var (
	errTaskCancelled = errors.New("the task was cancelled with tasks/cancel")
	errTaskRunLimit  = errors.New("the task ran past the server's run limit")
)

// clientHasTasks reports whether the client that sent req declared the
// tasks extension: in the request's own _meta (2026-07-28), or at
// initialize.
func clientHasTasks(ctx context.Context, req *mcp.CallToolRequest) bool {
	caps := clientCaps(ctx, req)
	if caps != nil {
		if _, ok := caps.Extensions[tasks.ExtensionID]; ok {
			return true
		}
	}
	return req.Session != nil && sessionDeclaresTasks(req.Session)
}

// sessionDeclaresTasks reports whether a session's client declared the
// tasks extension at initialize.
func sessionDeclaresTasks(ss *mcp.ServerSession) bool {
	if p := ss.InitializeParams(); p != nil && p.Capabilities != nil {
		_, ok := p.Capabilities.Extensions[tasks.ExtensionID]
		return ok
	}
	return false
}

// missingTasksError is the error of a call of a tool that runs only as a
// task from a client that did not declare the extension (SEP-2575's
// Missing Required Client Capability).
func missingTasksError(tool string) error {
	return missingTasks(fmt.Sprintf("The tool %q runs only as a task, and this client did not declare the tasks extension (%s) in its capabilities; use a client that supports tasks.", tool, tasks.ExtensionID))
}

// callAsTask answers a tools/call of a tool with task support: it reports
// false when the call runs at once as usual (no task support, or an
// optional one for a client without the extension), and otherwise the
// CreateTaskResult, or the error of a call that cannot become a task.
func (s *Server) callAsTask(ctx context.Context, req mcp.Request) (mcp.Result, error, bool) {
	call, ok := req.(*mcp.CallToolRequest)
	if !ok || call.Params == nil {
		return nil, nil, false
	}
	reg := s.current.Load()
	t := reg.tools[call.Params.Name]
	if t == nil || t.Task == "" {
		return nil, nil, false
	}
	if !clientHasTasks(ctx, call) {
		if t.Task == thcl.TaskRequired {
			return nil, missingTasksError(t.Name), true
		}
		return nil, nil, false
	}
	params, err := DecodeArgs(t, call.Params.Arguments)
	if err != nil {
		// Arguments that cannot run are said at once, as on a call
		// without a task.
		return toolError(err.Error() + "."), nil, true
	}
	var approval *mrtrCall
	if mctx, m := s.withMRTR(ctx, call); m != nil && (t.Confirm != nil || t.Ask != nil) {
		if m.canElicit && m.state == "" {
			// A 2026-07-28 client is asked first, through its own round
			// trips (SEP-2322): the call answers with the questions, and
			// the task is created once the answers come back with the
			// state (SEP-2663's composition of the two).
			return nil, nil, false
		}
		res, err := approveTask(mctx, reg, m, t, params, call.Params.Arguments)
		if err != nil || res != nil {
			return res, err, true
		}
		approval = m
	}
	caps := clientCaps(ctx, call)
	canElicit := caps != nil && caps.Elicitation != nil
	version := ""
	if call.Session != nil {
		if p := call.Session.InitializeParams(); p != nil {
			version = p.ProtocolVersion
		}
	}
	res, err := s.tasks.start(ctx, t.Name, call.Params.Arguments, version, canElicit, approval)
	return res, err, true
}

// start creates a task for a call of tool and runs it in the background.
func (th *taskHost) start(ctx context.Context, tool string, args json.RawMessage, version string, canElicit bool, approval *mrtrCall) (mcp.Result, error) {
	id := rand.Text()
	task := tasks.Task{ID: id, Tool: tool, Owner: th.owner, Status: tasks.Working}
	if c := ident.FromContext(ctx); c != nil {
		task.Subject = c.Subject
	}
	if err := th.store.Create(ctx, task); err != nil {
		if errors.Is(err, tasks.ErrTooManyTasks) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("The server keeps at most %d tasks, running and finished, and has that many (a finished task is kept for %s); try again later.", th.limits.MaxTasks, th.limits.TTL)}
		}
		return nil, th.storeError("the task could not be created", err)
	}
	stored, err := th.store.Get(ctx, id)
	if err != nil {
		return nil, th.storeError("the task was created but cannot be read back", err)
	}
	th.loop.Do(func() { go th.maintain() })
	reg := th.s.use()
	// The task runs for the caller who made the call (claim() reads their
	// token), in its session.
	runCtx, cancel := context.WithCancelCause(callerOf(ctx))
	if approval != nil {
		runCtx = context.WithValue(runCtx, mrtrKey{}, approval)
	}
	th.mu.Lock()
	th.running[id] = cancel
	th.mu.Unlock()
	th.wg.Add(1)
	go th.run(runCtx, reg, &taskPeer{th: th, id: id, canElicit: canElicit}, tool, args, version)
	return &createTaskResult{ResultType: "task", wireTask: th.wire(stored)}, nil
}

// run runs one task's call and settles the task with its outcome.
func (th *taskHost) run(ctx context.Context, reg *Registry, peer *taskPeer, tool string, args json.RawMessage, version string) {
	id := peer.id
	defer th.wg.Done()
	defer reg.release()
	defer func() {
		th.mu.Lock()
		cancel := th.running[id]
		delete(th.running, id)
		th.mu.Unlock()
		cancel(context.Canceled)
	}()
	ctx, done := th.s.callContext(ctx)
	defer done()
	limit := time.Duration(th.runLimit.Load())
	if limit > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, limit, errTaskRunLimit)
		defer stop()
	}
	res, err := th.call(ctx, reg, tool, args, peer)
	if res != nil && version != "" {
		forProtocol(res, version)
	}
	th.settle(ctx, id, res, err, limit)
}

// call runs a task's tool call. A panic in it fails the task with an
// internal error, as it fails a call over MCP (recoverRequest), instead of
// ending the process with every session in it.
func (th *taskHost) call(ctx context.Context, reg *Registry, tool string, args json.RawMessage, peer *taskPeer) (_ *mcp.CallToolResult, err error) {
	defer th.s.recoverRequest("tools/call (task)", &err)
	return reg.CallToolFrom(ctx, tool, args, peer)
}

// settle stores a task's outcome: cancelled, failed (the host stopped, the
// run limit, a result it cannot keep) or completed with the tool's result,
// an error result included.
func (th *taskHost) settle(ctx context.Context, id string, res *mcp.CallToolResult, callErr error, limit time.Duration) {
	cause := context.Cause(ctx)
	var status tasks.Status
	var failure *tasks.Error
	var result json.RawMessage
	switch {
	case errors.Is(cause, errTaskCancelled):
		status = tasks.Cancelled
	case errors.Is(cause, adapters.ErrHostExiting):
		failure = shutdownFailure(cause)
	case errors.Is(cause, errTaskRunLimit):
		failure = &tasks.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("The task ran for %s, the longest a call may run on this server (--request-timeout), and was stopped.", limit)}
	case callErr != nil:
		failure = &tasks.Error{Code: jsonrpc.CodeInternalError, Message: callErr.Error()}
	default:
		b, err := json.Marshal(res)
		switch {
		case err != nil:
			failure = &tasks.Error{Code: jsonrpc.CodeInternalError, Message: "The tool's result could not be encoded: " + err.Error()}
		case len(b) > MaxTaskResultBytes:
			failure = &tasks.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("The tool's result is %d bytes as JSON, more than the %d a task keeps; narrow the call, or lower the tool's output cap so that it fails as a tool error instead.", len(b), MaxTaskResultBytes)}
		default:
			status, result = tasks.Completed, b
		}
	}
	_, err := th.store.Update(context.Background(), id, func(t *tasks.Task) error {
		if t.Status.Terminal() {
			return tasks.ErrTerminal
		}
		switch {
		case failure != nil:
			tasks.SettleFailed(t, failure)
		case status == tasks.Cancelled:
			t.Status, t.StatusMessage = tasks.Cancelled, "The task was cancelled at the client's request (tasks/cancel)."
		default:
			t.Status, t.Result = status, result
		}
		t.InputRequests, t.InputResponses = nil, nil
		return nil
	})
	if errors.Is(err, tasks.ErrResultTooLarge) {
		_, err = th.store.Update(context.Background(), id, func(t *tasks.Task) error {
			tasks.SettleFailed(t, &tasks.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("The tool's result (%d bytes) would take the results the server keeps past their cap (%d bytes in all); try again once older tasks have expired.", len(result), th.limits.MaxResultBytes)})
			return nil
		})
	}
	if err != nil && !errors.Is(err, tasks.ErrTerminal) {
		slog.Warn("a task's outcome could not be stored", "task", id, "error", err)
	}
}

// shutdownFailure is the error of a task that was still running when the
// server stopped.
func shutdownFailure(cause error) *tasks.Error {
	return &tasks.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("The server stopped before the task finished (%s); call the tool again.", cause)}
}

// cancel asks for a task to be cancelled: at once when it runs here,
// through the store's heartbeat when another replica runs it.
func (th *taskHost) cancel(ctx context.Context, id string) (tasks.Task, error) {
	t, err := th.store.RequestCancel(ctx, id)
	if err != nil {
		return t, err
	}
	th.stopLocal(id)
	return t, nil
}

// stopLocal cancels the task's context when it runs in this process.
func (th *taskHost) stopLocal(id string) {
	th.mu.Lock()
	cancel := th.running[id]
	th.mu.Unlock()
	if cancel != nil {
		cancel(errTaskCancelled)
	}
}

// maintain renews the leases of this process's tasks, stops those another
// replica was asked to cancel (at once when the store is a CancelWatcher),
// and reaps the tasks of replicas that stopped, until Shutdown.
func (th *taskHost) maintain() {
	if w, ok := th.store.(tasks.CancelWatcher); ok {
		go w.WatchCancels(th.s.life, th.owner, th.stopLocal)
	}
	tick := time.NewTicker(th.limits.Lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-th.s.life.Done():
			return
		case <-tick.C:
		}
		ids, err := th.store.Heartbeat(context.Background(), th.owner)
		if err != nil {
			slog.Warn("the leases of this server's tasks could not be renewed", "error", err)
		}
		for _, id := range ids {
			th.stopLocal(id)
		}
		if _, err := th.store.Reap(context.Background()); err != nil {
			slog.Warn("the tasks of stopped servers could not be reaped", "error", err)
		}
	}
}

// SettleTasks waits, until ctx ends, for the tasks this server runs to
// settle after Shutdown stopped them, then settles as failed those still
// working, so that no task stays working in a shared store once the
// process is gone. A host calls it after Shutdown, before it exits.
func (s *Server) SettleTasks(ctx context.Context) {
	th := s.tasks
	done := make(chan struct{})
	go func() { th.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	left, err := th.store.List(context.Background(), tasks.Filter{Owner: th.owner, Active: true})
	if err != nil {
		slog.Warn("the tasks still running at exit could not be listed", "error", err)
		return
	}
	reason := context.Cause(s.life)
	if reason == nil {
		reason = ErrShuttingDown
	}
	for _, t := range left {
		_, _ = th.store.Update(context.Background(), t.ID, func(t *tasks.Task) error {
			if t.Status.Terminal() {
				return tasks.ErrTerminal
			}
			tasks.SettleFailed(t, shutdownFailure(reason))
			return nil
		})
	}
}
