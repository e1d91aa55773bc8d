package tasks

import "context"

// CancelWatcher is a Store that can tell the replica running a task, at
// once, of a cancel requested on another replica, rather than at its next
// Heartbeat (a third of the lease later). It is a fast path only: a cancel
// it misses (its connection to the store was down) still reaches the
// owner through Heartbeat.
type CancelWatcher interface {
	// WatchCancels calls stop with the id of each task of owner whose
	// cancel is requested, until ctx ends.
	WatchCancels(ctx context.Context, owner string, stop func(id string))
}
