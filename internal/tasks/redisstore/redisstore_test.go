package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolhost/toolhost/internal/tasks"
	"github.com/toolhost/toolhost/internal/tasks/storetest"
	"github.com/toolhost/toolhost/internal/testredis"
)

// prefixes numbers the key prefixes of the stores of one test run.
var prefixes atomic.Int64

// open returns a store on srv with a key prefix of its own, as a replica
// would open it (a client of its own).
func open(t *testing.T, srv *testredis.Server, o tasks.Options) *Store {
	t.Helper()
	prefix := fmt.Sprintf("test%d:", prefixes.Add(1))
	return openPrefix(t, srv, prefix, o)
}

// openPrefix returns a store on srv whose keys start with prefix; two
// stores of one prefix are two replicas sharing the Redis.
func openPrefix(t *testing.T, srv *testredis.Server, prefix string, o tasks.Options) *Store {
	t.Helper()
	return openURL(t, srv.URL, prefix, o)
}

// openURL opens a store on the Redis at url whose keys start with prefix;
// a store given a clock (o.Now) tells time by it instead of the Redis's.
func openURL(t *testing.T, url, prefix string, o tasks.Options) *Store {
	t.Helper()
	st, err := Open(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*Store)
	s.prefix = prefix
	if o.Now != nil {
		s.o.Now, s.clock = o.Now, nil
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestStoreBehaviour runs the behaviour every tasks.Store must have
// against a real redis-server.
func TestStoreBehaviour(t *testing.T) {
	srv := testredis.Start(t)
	storetest.Run(t, func(t *testing.T, o tasks.Options) tasks.Store { return open(t, srv, o) })
}

// TestTaskKeysExpire: every task key has a TTL in Redis, working or
// finished, so that Redis forgets tasks even when no replica trims; a
// finished task's is its retention plus the slack.
func TestTaskKeysExpire(t *testing.T) {
	srv := testredis.Start(t)
	ctx := context.Background()
	s := open(t, srv, tasks.Options{TTL: time.Hour, Lease: time.Minute})
	must(t, s.Create(ctx, tasks.Task{ID: "a", Tool: "slow", Owner: "r1", Status: tasks.Working}))
	ttl := func() time.Duration {
		d, err := s.c.PTTL(ctx, s.prefix+"task:a").Result()
		must(t, err)
		return d
	}
	if d := ttl(); d <= time.Hour || d > time.Hour+time.Minute+keySlack {
		t.Fatalf("working task's key TTL = %s, want the lease, the retention and the slack", d)
	}
	_, err := s.Update(ctx, "a", func(t *tasks.Task) error { t.Status = tasks.Completed; return nil })
	must(t, err)
	if d := ttl(); d <= time.Hour || d > time.Hour+keySlack {
		t.Fatalf("finished task's key TTL = %s, want the retention and the slack", d)
	}
}

// TestRedisClock: a store Open makes tells time by the Redis's clock, not
// by one given in its options, so that replicas agree on when leases end.
func TestRedisClock(t *testing.T) {
	srv := testredis.Start(t)
	ctx := context.Background()
	epoch := func() time.Time { return time.Unix(0, 0) }
	st, err := Open(ctx, srv.URL, tasks.Options{Now: epoch})
	must(t, err)
	defer st.Close()
	must(t, st.Create(ctx, tasks.Task{ID: "a", Tool: "slow", Owner: "r1", Status: tasks.Working}))
	got, err := st.Get(ctx, "a")
	must(t, err)
	redisNow, err := st.(*Store).c.Time(ctx).Result()
	must(t, err)
	if got.CreatedAt.Sub(redisNow).Abs() > time.Hour {
		t.Fatalf("created at %v, want the Redis's time (now %v)", got.CreatedAt, redisNow)
	}
}

// TestIndexTrimmedWithRetention: once its retention has passed, a task
// leaves the index, the task key goes and its bytes are given back.
func TestIndexTrimmedWithRetention(t *testing.T) {
	srv := testredis.Start(t)
	ctx := context.Background()
	c := storetest.NewClock()
	s := open(t, srv, tasks.Options{TTL: time.Minute, Lease: time.Hour, Now: c.Now})
	for _, id := range []string{"a", "b"} {
		must(t, s.Create(ctx, tasks.Task{ID: id, Tool: "slow", Owner: "r1", Status: tasks.Working}))
	}
	_, err := s.Update(ctx, "a", func(t *tasks.Task) error {
		t.Status, t.Result = tasks.Completed, []byte(`{"content":[]}`)
		return nil
	})
	must(t, err)
	c.Advance(time.Minute)
	_, err = s.Reap(ctx)
	must(t, err)
	ids, err := s.c.ZRange(ctx, s.prefix+"index", 0, -1).Result()
	must(t, err)
	if len(ids) != 1 || ids[0] != "b" {
		t.Fatalf("index = %v, want [b]", ids)
	}
	if n, _ := s.c.Exists(ctx, s.prefix+"task:a").Result(); n != 0 {
		t.Fatal("the trimmed task's key is still there")
	}
	if b, _ := s.c.Get(ctx, s.prefix+"bytes").Int(); b != 0 {
		t.Fatalf("bytes = %d after the only result was dropped", b)
	}
}

// TestLostOwnerSeenByReader: the task of a replica that stopped renewing
// its lease is read as failed, with the reason, by another replica that
// reads it after the lease ran out, with no Reap in between.
func TestLostOwnerSeenByReader(t *testing.T) {
	srv := testredis.Start(t)
	ctx := context.Background()
	c := storetest.NewClock()
	o := tasks.Options{Lease: 10 * time.Second, Now: c.Now}
	dead := open(t, srv, o)
	other := openPrefix(t, srv, dead.prefix, o)
	must(t, dead.Create(ctx, tasks.Task{ID: "a", Tool: "slow", Owner: "r1", Status: tasks.Working}))
	must(t, dead.Close())
	c.Advance(10 * time.Second)
	got, err := other.Get(ctx, "a")
	must(t, err)
	if got.Status != tasks.Failed || got.Error == nil || !strings.Contains(got.Error.Message, "r1") || got.StatusMessage == "" {
		t.Fatalf("got %+v, want failed with the reason", got)
	}
	if n, _ := other.c.ZCard(ctx, other.prefix+"active").Result(); n != 0 {
		t.Fatal("the failed task is still in the active set")
	}
}

// TestCancelReachesOwnerAtOnce: a cancel requested through one replica's
// store reaches the owner's WatchCancels, without waiting for a heartbeat.
func TestCancelReachesOwnerAtOnce(t *testing.T) {
	srv := testredis.Start(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	owner := open(t, srv, tasks.Options{})
	other := openPrefix(t, srv, owner.prefix, tasks.Options{})
	must(t, owner.Create(ctx, tasks.Task{ID: "a", Tool: "slow", Owner: "r1", Status: tasks.Working}))
	got := make(chan string, 1)
	subscribed := make(chan struct{})
	go owner.watchCancels(ctx, "r1", func(id string) { got <- id }, func() { close(subscribed) })
	<-subscribed
	_, err := other.RequestCancel(ctx, "a")
	must(t, err)
	if id := <-got; id != "a" {
		t.Fatalf("stopped %q, want a", id)
	}
	ids, err := owner.Heartbeat(ctx, "r1")
	must(t, err)
	if len(ids) != 1 || ids[0] != "a" {
		t.Fatalf("heartbeat = %v, want [a]", ids)
	}
}

// TestFirstUseAcrossReplicas: a nonce is first used once, whichever
// replica sees it, until it expires; the nonces kept are capped, and past
// the cap a new one is refused with an error, not let through.
func TestFirstUseAcrossReplicas(t *testing.T) {
	srv := testredis.Start(t)
	ctx := context.Background()
	a := open(t, srv, tasks.Options{})
	b := openPrefix(t, srv, a.prefix, tasks.Options{})
	a.maxApprovals, b.maxApprovals = 2, 2
	later := time.Now().Add(5 * time.Minute)
	for i, tc := range []struct {
		s     *Store
		nonce string
		until time.Time
		want  bool
		err   string
	}{
		{a, "n1", later, true, ""},
		{b, "n1", later, false, ""},
		{a, "n1", later, false, ""},
		{b, "old", time.Now().Add(-time.Second), true, ""}, // gone at once
		{a, "n2", later, true, ""},
		{b, "n3", later, false, "more than 2 approvals"},
		{a, "n2", later, false, ""},
	} {
		ok, err := tc.s.FirstUse(ctx, tc.nonce, tc.until)
		if ok != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Fatalf("use %d (%s): FirstUse = %v, %v; want %v, %q", i, tc.nonce, ok, err, tc.want, tc.err)
		}
	}
	score, err := a.c.ZScore(ctx, a.prefix+"approvals", "n1").Result()
	must(t, err)
	if int64(score) != later.UnixMilli() {
		t.Fatalf("n1 expires at %v, want %v", int64(score), later.UnixMilli())
	}
}

// TestFirstUseKeepsLaterNonces: a nonce that expires soon, used after one
// that expires later, does not shorten the life of the set that holds
// them, which would let the later one be used again once the set is gone.
func TestFirstUseKeepsLaterNonces(t *testing.T) {
	srv := testredis.Start(t)
	ctx := context.Background()
	a := open(t, srv, tasks.Options{})
	b := openPrefix(t, srv, a.prefix, tasks.Options{})
	later := time.Now().Add(5 * time.Minute)
	for _, u := range []struct {
		s     *Store
		nonce string
		until time.Time
	}{
		{a, "late", later},
		{b, "soon", time.Now().Add(time.Second)},
	} {
		if ok, err := u.s.FirstUse(ctx, u.nonce, u.until); !ok || err != nil {
			t.Fatalf("FirstUse(%s) = %v, %v; want true", u.nonce, ok, err)
		}
	}
	ttl, err := a.c.PTTL(ctx, a.prefix+"approvals").Result()
	must(t, err)
	if ttl < 5*time.Minute {
		t.Fatalf("the set of used nonces expires in %v, before the nonce \"late\" (5m from its use)", ttl)
	}
}

// TestUnreachableRedis: errors say where the Redis is and what to check,
// and never hold the password of the URL.
func TestUnreachableRedis(t *testing.T) {
	srv := testredis.Start(t)
	ctx := context.Background()
	addr := srv.Addr
	t.Run("at open", func(t *testing.T) {
		srv.Kill()
		defer srv.Restart()
		_, err := tasks.Open(ctx, "redis://toolhost:s3cret-pw@"+addr+"/0", tasks.Options{})
		if err == nil {
			t.Fatal("Open succeeded with the Redis down")
		}
		msg := err.Error()
		if !strings.Contains(msg, "toolhost could not reach Redis at "+addr) || !strings.Contains(msg, "--task-store") || strings.Contains(msg, "s3cret-pw") {
			t.Fatalf("error: %s", msg)
		}
	})
	t.Run("while serving, and back after a restart", func(t *testing.T) {
		s := open(t, srv, tasks.Options{})
		must(t, s.Create(ctx, tasks.Task{ID: "a", Tool: "slow", Owner: "r1", Status: tasks.Working}))
		srv.Kill()
		_, err := s.Get(ctx, "a")
		if err == nil || !strings.Contains(err.Error(), "toolhost could not reach Redis at "+addr) {
			t.Fatalf("Get with the Redis down: %v", err)
		}
		srv.Restart()
		// The Redis lost its data (no persistence): the task is gone, and
		// the store works again.
		if _, err := s.Get(ctx, "a"); !errors.Is(err, tasks.ErrNotFound) {
			t.Fatalf("Get after the restart: %v, want ErrNotFound", err)
		}
		must(t, s.Create(ctx, tasks.Task{ID: "b", Tool: "slow", Owner: "r1", Status: tasks.Working}))
	})
	t.Run("bad URLs", func(t *testing.T) {
		for _, u := range []string{"redis://user:s3cret-pw@host:6379/x", "redis://user:s3cret-pw@[::1"} {
			_, err := Open(ctx, u, tasks.Options{})
			if err == nil || strings.Contains(err.Error(), "s3cret-pw") || !strings.Contains(err.Error(), "--task-store") {
				t.Fatalf("Open(%q): %v", u, err)
			}
		}
	})
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, redis.Nil) {
		t.Fatal(err)
	}
}

// aclRules are the ACL rules SECURITY.md gives for the Redis user of
// toolhost: its keys and channels only, and no dangerous command.
const aclRules = "resetkeys ~toolhost:* resetchannels &toolhost:* -@all +@read +@write +@scripting +@pubsub +@connection +time -@dangerous"

// TestACLUser: a Redis user limited by aclRules runs everything the store
// does.
func TestACLUser(t *testing.T) {
	srv := testredis.Start(t)
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer admin.Close()
	args := []any{"ACL", "SETUSER", "toolhost", "on", ">s3cret-pw"}
	for _, r := range strings.Fields(aclRules) {
		args = append(args, r)
	}
	must(t, admin.Do(ctx, args...).Err())
	url := "redis://toolhost:s3cret-pw@" + srv.Addr + "/0"
	openACL := func(t *testing.T, o tasks.Options) *Store {
		return openURL(t, url, fmt.Sprintf("toolhost:test%d:", prefixes.Add(1)), o)
	}
	storetest.Run(t, func(t *testing.T, o tasks.Options) tasks.Store { return openACL(t, o) })
	t.Run("approvals and cancels", func(t *testing.T) {
		s := openACL(t, tasks.Options{})
		ok, err := s.FirstUse(ctx, "n", time.Now().Add(time.Minute))
		if !ok || err != nil {
			t.Fatalf("FirstUse = %v, %v", ok, err)
		}
		must(t, s.Create(ctx, tasks.Task{ID: "a", Tool: "slow", Owner: "r1", Status: tasks.Working}))
		got := make(chan string, 1)
		subscribed := make(chan struct{})
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		go s.watchCancels(wctx, "r1", func(id string) { got <- id }, func() { close(subscribed) })
		<-subscribed
		_, err = s.RequestCancel(ctx, "a")
		must(t, err)
		<-got
		_, err = s.Reap(ctx)
		must(t, err)
	})
	t.Run("other keys refused", func(t *testing.T) {
		s := openACL(t, tasks.Options{})
		s.prefix = "other:"
		err := s.Create(ctx, tasks.Task{ID: "a", Tool: "slow", Owner: "r1", Status: tasks.Working})
		if err == nil || !strings.Contains(err.Error(), "refused a command") {
			t.Fatalf("Create under another prefix: %v, want refused", err)
		}
	})
}
