package host

import "github.com/toolhost/toolhost/internal/audit"

// ServerOption tunes NewServer.
type ServerOption func(*serverOptions)

// serverOptions are the settings ServerOptions make.
type serverOptions struct {
	listChanged bool
	beforeWork  func()
	stateKey    []byte
	stateGuard  StateGuard
	tasks       *TaskOptions
	audit       *audit.Log
	group       string    // ServeGroup's
	observe     *observer // Observe's, or nil
}

// StateKey gives NewServer the key that signs the requestStates of
// 2026-07-28 approvals (HMAC-SHA256), at least MinStateKeyLen bytes:
// replicas given the same key accept each other's states. Without it, the
// server makes a random key of its own.
func StateKey(key []byte) ServerOption {
	return func(o *serverOptions) { o.stateKey = key }
}

// UseStateGuard gives NewServer the StateGuard that makes each
// requestState single-use; without it, NewMemoryStateGuard's, which
// guards one process only.
func UseStateGuard(g StateGuard) ServerOption {
	return func(o *serverOptions) { o.stateGuard = g }
}

// BeforeWork gives NewServer a function to run before the server does any
// work but answer initialize: the server calls it on a new goroutine once
// initialize is answered (so that it costs the first answer nothing), and
// before it handles any other request (so that it has finished before
// anything runs). f must be safe to call more than once and at once from
// several goroutines, and do its work once (sync.Once).
func BeforeWork(f func()) ServerOption {
	return func(o *serverOptions) { o.beforeWork = f }
}

// ListChanged says whether the tools, resources and prompts in service may
// change while clients are connected, as they do when a Reloader watches
// the config: the capabilities advertise it as listChanged. It is true
// unless given; serve --watch=false passes false, so that clients do not
// wait for notifications that never come.
func ListChanged(on bool) ServerOption {
	return func(o *serverOptions) { o.listChanged = on }
}
