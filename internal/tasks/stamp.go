package tasks

import "time"

// Stamp sets what Create leaves to the store on a new task: CreatedAt and
// LastUpdatedAt to now and LeaseExpires to now plus the lease, each when
// it is zero.
func (o Options) Stamp(t *Task, now time.Time) {
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now
	}
	if t.LastUpdatedAt.IsZero() {
		t.LastUpdatedAt = now
	}
	if t.LeaseExpires.IsZero() {
		t.LeaseExpires = now.Add(o.Lease)
	}
}
