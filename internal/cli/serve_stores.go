package cli

import (
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/tasks"
	// The Redis task store, for --task-store redis://... and rediss://...
	_ "github.com/toolhost/toolhost/internal/tasks/redisstore"
)

// stateGuardOption is the server option that makes approvals single-use
// in the task store, when the store can (a store shared by replicas, such
// as Redis), or nil: then each process remembers the approvals used in it.
func stateGuardOption(store tasks.Store) host.ServerOption {
	if g, ok := store.(host.StateGuard); ok {
		return host.UseStateGuard(g)
	}
	return nil
}
