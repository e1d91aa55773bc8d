// Package storetest is the behaviour every tasks.Store must have, as tests
// a backend's own test file runs against a store of its kind: the memory
// store's and a Redis store's tests call Run with their constructor.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/tasks"
)

// Clock is a settable clock for a store's Options.Now.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock set to a fixed moment.
func NewClock() *Clock { return &Clock{now: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Open makes a new, empty store with o's limits and clock. A shared store
// must give each call a store of its own (a fresh key prefix).
type Open func(t *testing.T, o tasks.Options) tasks.Store

// working is a new working task with that id, owned by owner.
func working(id, owner string) tasks.Task {
	return tasks.Task{ID: id, Tool: "slow", Owner: owner, Status: tasks.Working}
}

// complete is an Update fn that completes a task with result r.
func complete(r string) func(*tasks.Task) error {
	return func(t *tasks.Task) error {
		t.Status = tasks.Completed
		t.Result = json.RawMessage(r)
		return nil
	}
}

// Run runs the behaviour tests against stores open makes.
func Run(t *testing.T, open Open) {
	ctx := context.Background()
	opts := func(c *Clock) tasks.Options {
		return tasks.Options{TTL: time.Minute, MaxTasks: 3, MaxResultBytes: 100, Lease: 10 * time.Second, Now: c.Now}
	}
	tests := []struct {
		name string
		run  func(t *testing.T, s tasks.Store, c *Clock)
	}{
		{"create then get", func(t *testing.T, s tasks.Store, c *Clock) {
			must(t, s.Create(ctx, working("a", "r1")))
			got, err := s.Get(ctx, "a")
			must(t, err)
			if got.Status != tasks.Working || got.Tool != "slow" || !got.CreatedAt.Equal(c.Now()) || !got.LeaseExpires.Equal(c.Now().Add(10*time.Second)) {
				t.Fatalf("got %+v", got)
			}
			if err := s.Create(ctx, working("a", "r1")); !errors.Is(err, tasks.ErrExists) {
				t.Fatalf("second create: %v, want ErrExists", err)
			}
		}},
		{"unknown id", func(t *testing.T, s tasks.Store, _ *Clock) {
			if _, err := s.Get(ctx, "nope"); !errors.Is(err, tasks.ErrNotFound) {
				t.Fatalf("Get: %v", err)
			}
			if _, err := s.Update(ctx, "nope", complete(`{}`)); !errors.Is(err, tasks.ErrNotFound) {
				t.Fatalf("Update: %v", err)
			}
			if _, err := s.RequestCancel(ctx, "nope"); !errors.Is(err, tasks.ErrNotFound) {
				t.Fatalf("RequestCancel: %v", err)
			}
		}},
		{"complete, then kept for the ttl and dropped after", func(t *testing.T, s tasks.Store, c *Clock) {
			must(t, s.Create(ctx, working("a", "r1")))
			c.Advance(time.Hour) // time working does not count
			got, err := s.Update(ctx, "a", complete(`{"content":[]}`))
			must(t, err)
			if !got.ExpiresAt.Equal(c.Now().Add(time.Minute)) || string(got.Result) != `{"content":[]}` {
				t.Fatalf("got %+v", got)
			}
			c.Advance(time.Minute - time.Second)
			if _, err := s.Get(ctx, "a"); err != nil {
				t.Fatalf("before the ttl: %v", err)
			}
			c.Advance(time.Second)
			if _, err := s.Get(ctx, "a"); !errors.Is(err, tasks.ErrNotFound) {
				t.Fatalf("after the ttl: %v, want ErrNotFound", err)
			}
		}},
		{"a terminal task keeps its status", func(t *testing.T, s tasks.Store, _ *Clock) {
			must(t, s.Create(ctx, working("a", "r1")))
			_, err := s.Update(ctx, "a", complete(`{}`))
			must(t, err)
			_, err = s.Update(ctx, "a", func(t *tasks.Task) error { t.Status = tasks.Cancelled; return nil })
			if !errors.Is(err, tasks.ErrTerminal) {
				t.Fatalf("got %v, want ErrTerminal", err)
			}
			got, err := s.RequestCancel(ctx, "a")
			must(t, err)
			if got.Status != tasks.Completed || got.CancelRequested {
				t.Fatalf("cancel of a finished task changed it: %+v", got)
			}
		}},
		{"an fn error stores nothing", func(t *testing.T, s tasks.Store, _ *Clock) {
			must(t, s.Create(ctx, working("a", "r1")))
			boom := errors.New("boom")
			if _, err := s.Update(ctx, "a", func(t *tasks.Task) error { t.Status = tasks.Failed; return boom }); !errors.Is(err, boom) {
				t.Fatalf("got %v", err)
			}
			got, _ := s.Get(ctx, "a")
			if got.Status != tasks.Working {
				t.Fatalf("status %q", got.Status)
			}
		}},
		{"task count cap, finished tasks count until dropped", func(t *testing.T, s tasks.Store, c *Clock) {
			for i := range 3 {
				must(t, s.Create(ctx, working(fmt.Sprint(i), "r1")))
			}
			if err := s.Create(ctx, working("x", "r1")); !errors.Is(err, tasks.ErrTooManyTasks) {
				t.Fatalf("got %v, want ErrTooManyTasks", err)
			}
			_, err := s.Update(ctx, "0", complete(`{}`))
			must(t, err)
			if err := s.Create(ctx, working("x", "r1")); !errors.Is(err, tasks.ErrTooManyTasks) {
				t.Fatalf("finished, not expired: got %v, want ErrTooManyTasks", err)
			}
			c.Advance(time.Minute)
			must(t, s.Create(ctx, working("x", "r1")))
		}},
		{"result bytes cap", func(t *testing.T, s tasks.Store, _ *Clock) {
			must(t, s.Create(ctx, working("a", "r1")))
			must(t, s.Create(ctx, working("b", "r1")))
			big := fmt.Sprintf(`"%060d"`, 0) // 62 bytes
			_, err := s.Update(ctx, "a", complete(big))
			must(t, err)
			if _, err := s.Update(ctx, "b", complete(big)); !errors.Is(err, tasks.ErrResultTooLarge) {
				t.Fatalf("got %v, want ErrResultTooLarge", err)
			}
			got, _ := s.Get(ctx, "b")
			if got.Status != tasks.Working {
				t.Fatalf("refused update changed the task: %+v", got)
			}
			// A task refused its result can still be settled as failed.
			got, err = s.Update(ctx, "b", func(t *tasks.Task) error {
				tasks.SettleFailed(t, &tasks.Error{Code: tasks.CodeInternalError, Message: strings.Repeat("a long reason ", 20)})
				return nil
			})
			if err != nil || got.Status != tasks.Failed {
				t.Fatalf("settling failed: %v, %+v", err, got)
			}
		}},
		{"cancel request reaches the owner's heartbeat", func(t *testing.T, s tasks.Store, _ *Clock) {
			must(t, s.Create(ctx, working("a", "r1")))
			must(t, s.Create(ctx, working("b", "r1")))
			must(t, s.Create(ctx, working("c", "r2")))
			_, err := s.RequestCancel(ctx, "a")
			must(t, err)
			_, err = s.RequestCancel(ctx, "c")
			must(t, err)
			ids, err := s.Heartbeat(ctx, "r1")
			must(t, err)
			if !slices.Equal(ids, []string{"a"}) {
				t.Fatalf("heartbeat r1 = %v, want [a]", ids)
			}
		}},
		{"reap fails the tasks of a replica that stopped", func(t *testing.T, s tasks.Store, c *Clock) {
			must(t, s.Create(ctx, working("dead", "r1")))
			must(t, s.Create(ctx, working("alive", "r2")))
			c.Advance(9 * time.Second)
			_, err := s.Heartbeat(ctx, "r2")
			must(t, err)
			c.Advance(2 * time.Second)
			n, err := s.Reap(ctx)
			must(t, err)
			if n != 1 {
				t.Fatalf("reaped %d, want 1", n)
			}
			dead, _ := s.Get(ctx, "dead")
			if dead.Status != tasks.Failed || dead.Error == nil || dead.Error.Message == "" || dead.ExpiresAt.IsZero() {
				t.Fatalf("dead task: %+v", dead)
			}
			alive, _ := s.Get(ctx, "alive")
			if alive.Status != tasks.Working {
				t.Fatalf("alive task: %+v", alive)
			}
		}},
		{"list by owner and activity", func(t *testing.T, s tasks.Store, _ *Clock) {
			must(t, s.Create(ctx, working("a", "r1")))
			must(t, s.Create(ctx, working("b", "r1")))
			must(t, s.Create(ctx, working("c", "r2")))
			_, err := s.Update(ctx, "b", complete(`{}`))
			must(t, err)
			got, err := s.List(ctx, tasks.Filter{Owner: "r1", Active: true})
			must(t, err)
			if len(got) != 1 || got[0].ID != "a" {
				t.Fatalf("got %+v", got)
			}
			all, err := s.List(ctx, tasks.Filter{})
			must(t, err)
			if len(all) != 3 {
				t.Fatalf("all: %d tasks", len(all))
			}
		}},
		{"concurrent updates are atomic", func(t *testing.T, s tasks.Store, _ *Clock) {
			must(t, s.Create(ctx, working("a", "r1")))
			var wg sync.WaitGroup
			for range 20 {
				wg.Go(func() {
					_, err := s.Update(ctx, "a", func(t *tasks.Task) error {
						var n int
						_ = json.Unmarshal(t.InputRequests, &n)
						t.InputRequests = json.RawMessage(fmt.Sprint(n + 1))
						return nil
					})
					if err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			got, _ := s.Get(ctx, "a")
			if string(got.InputRequests) != "20" {
				t.Fatalf("counter = %s, want 20", got.InputRequests)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewClock()
			s := open(t, opts(c))
			t.Cleanup(func() { _ = s.Close() })
			tc.run(t, s, c)
		})
	}
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
