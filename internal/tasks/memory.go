package tasks

import (
	"context"
	"fmt"
	"sync"
)

// Memory is a Store that keeps tasks in this process: for one replica, and
// for tests. Its tasks die with the process.
type Memory struct {
	o     Options
	mu    sync.Mutex
	tasks map[string]*Task
	bytes int64 // sum of Size over tasks
}

// NewMemory returns an empty in-memory store with o's limits (zero fields
// take their defaults).
func NewMemory(o Options) *Memory {
	return &Memory{o: o.WithDefaults(), tasks: map[string]*Task{}}
}

var _ Store = (*Memory)(nil)

// dropExpired drops the terminal tasks past their ExpiresAt. m.mu is held.
func (m *Memory) dropExpired() {
	now := m.o.Now()
	for id, t := range m.tasks {
		if t.Status.Terminal() && !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt) {
			m.bytes -= t.Size()
			delete(m.tasks, id)
		}
	}
}

// Create implements Store.
func (m *Memory) Create(_ context.Context, t Task) error {
	if t.ID == "" || t.Status != Working {
		return fmt.Errorf("tasks: Create needs an id and status working (got %q, %q)", t.ID, t.Status)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.tasks[t.ID]; dup {
		return ErrExists
	}
	if len(m.tasks) >= m.o.MaxTasks {
		m.dropExpired()
		if len(m.tasks) >= m.o.MaxTasks {
			return fmt.Errorf("%w: %d, the most this server keeps", ErrTooManyTasks, m.o.MaxTasks)
		}
	}
	if m.bytes+t.Size() > m.o.MaxResultBytes {
		return fmt.Errorf("%w of %d bytes", ErrResultTooLarge, m.o.MaxResultBytes)
	}
	now := m.o.Now()
	m.o.Stamp(&t, now)
	m.tasks[t.ID] = &t
	m.bytes += t.Size()
	return nil
}

// get returns the live task with that id, dropping it when it has expired.
// m.mu is held.
func (m *Memory) get(id string) (*Task, error) {
	t := m.tasks[id]
	if t == nil {
		return nil, ErrNotFound
	}
	if t.Status.Terminal() && !t.ExpiresAt.IsZero() && !m.o.Now().Before(t.ExpiresAt) {
		m.bytes -= t.Size()
		delete(m.tasks, id)
		return nil, ErrNotFound
	}
	return t, nil
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, id string) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.get(id)
	if err != nil {
		return Task{}, err
	}
	return *t, nil
}

// Update implements Store.
func (m *Memory) Update(_ context.Context, id string, fn func(*Task) error) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, err := m.get(id)
	if err != nil {
		return Task{}, err
	}
	next := *cur
	if err := fn(&next); err != nil {
		return Task{}, err
	}
	next.ID = cur.ID
	if cur.Status.Terminal() && next.Status != cur.Status {
		return Task{}, ErrTerminal
	}
	if grow := next.Size() - cur.Size(); grow > 0 && m.bytes+grow > m.o.MaxResultBytes {
		return Task{}, fmt.Errorf("%w of %d bytes", ErrResultTooLarge, m.o.MaxResultBytes)
	}
	now := m.o.Now()
	next.LastUpdatedAt = now
	if next.Status.Terminal() && !cur.Status.Terminal() {
		next.ExpiresAt = now.Add(m.o.TTL)
	}
	m.bytes += next.Size() - cur.Size()
	*cur = next
	return next, nil
}

// List implements Store.
func (m *Memory) List(_ context.Context, f Filter) ([]Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropExpired()
	var out []Task
	for _, t := range m.tasks {
		if f.Owner != "" && t.Owner != f.Owner || f.Active && t.Status.Terminal() {
			continue
		}
		out = append(out, *t)
	}
	return out, nil
}

// RequestCancel implements Store.
func (m *Memory) RequestCancel(_ context.Context, id string) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.get(id)
	if err != nil {
		return Task{}, err
	}
	if !t.Status.Terminal() && !t.CancelRequested {
		t.CancelRequested = true
		t.LastUpdatedAt = m.o.Now()
	}
	return *t, nil
}

// Heartbeat implements Store.
func (m *Memory) Heartbeat(_ context.Context, owner string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	until := m.o.Now().Add(m.o.Lease)
	var cancel []string
	for _, t := range m.tasks {
		if t.Owner != owner || t.Status.Terminal() {
			continue
		}
		t.LeaseExpires = until
		if t.CancelRequested {
			cancel = append(cancel, t.ID)
		}
	}
	return cancel, nil
}

// Reap implements Store.
func (m *Memory) Reap(_ context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropExpired()
	now := m.o.Now()
	failed := 0
	for _, t := range m.tasks {
		if t.Status.Terminal() || now.Before(t.LeaseExpires) {
			continue
		}
		m.bytes -= t.Size()
		SettleFailed(t, LostOwnerError(t.Owner))
		t.LastUpdatedAt = now
		t.ExpiresAt = now.Add(m.o.TTL)
		m.bytes += t.Size()
		failed++
	}
	return failed, nil
}

// Close implements Store; a memory store has nothing to release.
func (m *Memory) Close() error { return nil }
