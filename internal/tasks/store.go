// Package tasks keeps the state of long-running tool calls run as tasks
// (the MCP tasks extension, io.modelcontextprotocol/tasks): a Store
// interface that every backend implements, an in-memory Store, and a
// registry of store openers by URL scheme, so that `serve --task-store`
// can name a backend (memory, redis://...) without the host knowing them.
//
// A task is created working by the replica that runs it (its owner), which
// renews a lease on it while it runs (Heartbeat). A replica that dies stops
// renewing; Reap, run by any replica, then settles its tasks as failed with
// a reason, so that no task is left working forever. A finished task is
// kept for the store's retention time (TTL) and then dropped.
package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ExtensionID is the name of the tasks extension in capabilities.extensions.
const ExtensionID = "io.modelcontextprotocol/tasks"

// Status is a task's state on the wire.
type Status string

// The statuses of a task. Completed, Failed and Cancelled are terminal: a
// task in one of them never changes status again.
const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

// Terminal reports whether s is a status a task never leaves.
func (s Status) Terminal() bool {
	return s == Completed || s == Failed || s == Cancelled
}

// Error is a failed task's protocol-level error, in the JSON-RPC error shape.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Task is one task as a Store keeps it. Stores serialize it as JSON with
// these field names (a Redis store keeps exactly this encoding), so that
// replicas of different builds read each other's tasks.
type Task struct {
	// ID is the task's id: unguessable (the host makes 128 random bits),
	// since knowing it is what lets a client read or cancel the task.
	ID string `json:"id"`
	// Tool is the name of the tool the task runs.
	Tool string `json:"tool"`
	// Subject is the subject of the verified token of the call that
	// created the task, "" for a call without one: only a caller of the
	// same subject reads, cancels or answers the task (the MCP spec binds
	// tasks to the authorization context that created them).
	Subject string `json:"subject,omitempty"`
	Status  Status `json:"status"`
	// StatusMessage says why a task is in its status (a failure's reason,
	// a cancellation's source), for people.
	StatusMessage string    `json:"statusMessage,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	LastUpdatedAt time.Time `json:"lastUpdatedAt"`
	// Owner is the id of the replica running the task; LeaseExpires is
	// when its lease runs out unless Heartbeat renews it.
	Owner        string    `json:"owner"`
	LeaseExpires time.Time `json:"leaseExpires"`
	// CancelRequested is set by RequestCancel; the owner sees it through
	// Heartbeat (or at once when the cancel arrives on its own replica)
	// and stops the call.
	CancelRequested bool `json:"cancelRequested,omitempty"`
	// ExpiresAt is when a terminal task is dropped: set by the store when
	// the task becomes terminal, to that moment plus the store's TTL.
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// Result is the tool's result (a CallToolResult as it goes on the
	// wire, already capped and redacted) of a completed task.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the protocol-level error of a failed task.
	Error *Error `json:"error,omitempty"`
	// InputRequests holds the requests for input of a task in
	// input_required (the MRTR inputRequests map, as JSON).
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
	// InputResponses holds the answers tasks/update delivered (a JSON
	// object by the keys of InputRequests) until the owner takes them.
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
}

// Size is the number of bytes of t's result, error data, input requests and
// responses:
// what counts against a store's MaxResultBytes. An error's message is the
// server's own short text and does not count, so that a task refused its
// result for the cap can always be settled as failed.
func (t *Task) Size() int64 {
	n := int64(len(t.Result) + len(t.InputRequests) + len(t.InputResponses))
	if t.Error != nil {
		n += int64(len(t.Error.Data))
	}
	return n
}

// Errors a Store returns. Callers test them with errors.Is; a store may
// wrap them with more detail.
var (
	// ErrNotFound: no task has that id, or it was dropped after its TTL.
	ErrNotFound = errors.New("no task has that id (it may have expired)")
	// ErrExists: Create was given an id that is already taken.
	ErrExists = errors.New("a task with that id exists")
	// ErrTooManyTasks: Create would keep more tasks than MaxTasks.
	ErrTooManyTasks = errors.New("too many tasks are kept")
	// ErrResultTooLarge: an Update would keep more bytes of results than
	// MaxResultBytes.
	ErrResultTooLarge = errors.New("the task results kept would exceed their byte cap")
	// ErrTerminal: an Update tried to change the status of a terminal task.
	ErrTerminal = errors.New("the task has already finished")
)

// Store keeps tasks. Every method is safe for concurrent use, by the
// goroutines of one replica and by several replicas sharing the store.
// Methods take the caller's context for the store's own I/O only.
type Store interface {
	// Create stores t, which must have an ID, a Tool, an Owner and status
	// Working. The store sets CreatedAt and LastUpdatedAt to its clock's
	// now and LeaseExpires to now plus the lease (Options.Lease) when they
	// are zero. Create returns only once a Get for t.ID on any replica
	// finds the task (durable create). It returns ErrTooManyTasks when the
	// store already keeps Options.MaxTasks tasks (finished ones not yet
	// expired count), and ErrExists when the id is taken.
	Create(ctx context.Context, t Task) error

	// Get returns the task with that id, or ErrNotFound when there is none
	// or it has expired (a store drops a terminal task past its ExpiresAt
	// even when Reap has not run yet).
	Get(ctx context.Context, id string) (Task, error)

	// Update changes a task atomically: it calls fn with the current task
	// and stores what fn leaves in it, unless fn returns an error, which
	// Update returns unchanged without storing anything. fn may be called
	// more than once (a shared store retries on a concurrent write), so it
	// must only change the task it is given. Update sets LastUpdatedAt,
	// and ExpiresAt when the task becomes terminal. It refuses with
	// ErrTerminal a change of status of a task already terminal (fn may
	// still set other fields, such as CancelRequested), with
	// ErrResultTooLarge a task whose Size would take the store past
	// Options.MaxResultBytes, and with ErrNotFound an unknown id. It
	// returns the task as stored.
	Update(ctx context.Context, id string, fn func(*Task) error) (Task, error)

	// List returns the tasks that match f, in no set order. It is for the
	// host's own bookkeeping (shutdown, tests), not a wire method: the
	// number of tasks is bounded by MaxTasks.
	List(ctx context.Context, f Filter) ([]Task, error)

	// RequestCancel marks the task as to be cancelled and returns it. On a
	// terminal task it changes nothing and returns the task (a cancel is
	// idempotent); an unknown id is ErrNotFound. It does not settle the
	// task: the owner stops the call and settles it Cancelled.
	RequestCancel(ctx context.Context, id string) (Task, error)

	// Heartbeat renews, to now plus the lease, the lease of every
	// non-terminal task owned by owner, and returns the ids of those among
	// them with CancelRequested set, so that the owner stops them. A
	// replica calls it at a period well under the lease while it runs
	// tasks.
	Heartbeat(ctx context.Context, owner string) (cancel []string, err error)

	// Reap settles as Failed, with a StatusMessage saying the replica
	// running it stopped, every non-terminal task whose lease ran out, and
	// drops every terminal task past its ExpiresAt. It returns how many
	// tasks it failed. Any replica may call it, periodically.
	Reap(ctx context.Context) (failed int, err error)

	// Close releases the store's resources. Tasks stay in a shared store.
	Close() error
}

// Filter selects tasks for List. Zero fields match every task.
type Filter struct {
	// Owner, when set, matches only tasks of that replica.
	Owner string
	// Active, when set, matches only tasks that are not terminal.
	Active bool
}

// Options are the limits and clock of a store.
type Options struct {
	// TTL is how long a finished task is kept (from the moment it
	// finished) before it is dropped; clients see it as ttlMs.
	TTL time.Duration
	// MaxTasks caps the number of tasks kept, working and finished.
	MaxTasks int
	// MaxResultBytes caps the bytes of results (Task.Size) kept in all.
	MaxResultBytes int64
	// Lease is how long a task's owner may go without a Heartbeat before
	// Reap settles its tasks as failed.
	Lease time.Duration
	// Now is the store's clock; nil is time.Now. Tests set it.
	Now func() time.Time
}

// The defaults of Options' fields left zero; see WithDefaults.
const (
	DefaultTTL            = 15 * time.Minute
	DefaultMaxTasks       = 1000
	DefaultMaxResultBytes = 64 << 20
	DefaultLease          = 30 * time.Second
)

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.MaxTasks <= 0 {
		o.MaxTasks = DefaultMaxTasks
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}
