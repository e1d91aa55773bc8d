// Package redisstore is a tasks.Store kept in Redis, shared by replicas of
// toolhost behind a load balancer: any replica answers for any task, a
// cancel requested on one reaches the replica running the task, and a task
// whose replica died is settled as failed once its lease runs out. The
// same Redis makes approvals of 2026-07-28 clients single-use across
// replicas (Store.FirstUse, a host.StateGuard).
//
// It registers the redis:// and rediss:// (TLS) schemes of --task-store.
// It needs one Redis 6.2 or later (not a cluster: its scripts name keys of
// their own).
//
// Each task is one key holding its JSON (the encoding of tasks.Task), with
// a key TTL that outlives the task's retention; beside it, a sorted-set
// index by when each task may be dropped (trimmed as retention passes), a
// sorted set of unfinished tasks by lease, a set per owner of its
// unfinished tasks, and the byte count of results kept. Every change is a
// compare-and-set in a Lua script, retried on a concurrent write.
package redisstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolhost/toolhost/internal/tasks"
)

// DefaultPrefix starts the name of every key the store uses.
const DefaultPrefix = "toolhost:"

// Limits of the store.
const (
	// maxAttempts is how often Update retries a compare-and-set that lost
	// to a concurrent write before it gives up.
	maxAttempts = 100
	// keySlack is how much longer than the task's retention its key lives
	// in Redis: the store's own clock decides when a task is gone; the key
	// TTL only makes sure Redis forgets it even when no replica trims.
	keySlack = time.Minute
	// dialTimeout bounds the first connection Open makes.
	dialTimeout = 5 * time.Second
	// maxApprovals is the most unexpired approval nonces kept, as in the
	// in-memory guard of one process.
	maxApprovals = 100_000
)

func init() {
	tasks.Register("redis", Open)
	tasks.Register("rediss", Open)
	redis.SetLogger(clientLog{})
}

// clientLog sends the Redis client's own log lines (failed dials, which
// the store's errors report) to slog at debug level, so that stderr keeps
// toolhost's log format.
type clientLog struct{}

// Printf implements the Redis client's logger.
func (clientLog) Printf(ctx context.Context, format string, v ...any) {
	slog.DebugContext(ctx, "redis client: "+fmt.Sprintf(format, v...))
}

// Store is a tasks.Store in Redis. Make one with Open or New.
type Store struct {
	c      *redis.Client
	o      tasks.Options
	prefix string
	// addr is the Redis's host:port, for messages (never the password).
	addr string
	// maxApprovals is the most unexpired approval nonces kept (tests
	// lower it).
	maxApprovals int
	// clock is the Redis's clock, when the store tells time by it (as
	// Open's do); Reap syncs it.
	clock *redisClock
}

var (
	_ tasks.Store         = (*Store)(nil)
	_ tasks.CancelWatcher = (*Store)(nil)
)

// Open connects to the Redis at rawURL (redis://[user:password@]host:port[/db],
// or rediss:// for TLS) and returns a store with o's limits, once the Redis
// answers a PING. It tells time by the Redis's clock (see redisClock), not
// by o.Now. Its errors never hold the password.
func Open(ctx context.Context, rawURL string, o tasks.Options) (tasks.Store, error) {
	ro, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("--task-store: %s; give a URL such as redis://host:6379/0, or rediss://host:6380 for TLS", urlError(err))
	}
	ro.DialTimeout = dialTimeout
	c := redis.NewClient(ro)
	clock := &redisClock{c: c}
	o.Now = clock.now
	s := New(c, DefaultPrefix, o)
	s.clock = clock
	pctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	err = c.Ping(pctx).Err()
	if err == nil {
		err = clock.sync(pctx)
	}
	if err != nil {
		_ = c.Close()
		return nil, s.wrap(err)
	}
	return s, nil
}

// redisClock tells the time of the Redis server, read with TIME and kept
// as an offset from this machine's clock: the replicas sharing a Redis
// then agree on when a lease or a retention ends even when their own
// clocks drift apart.
type redisClock struct {
	c      *redis.Client
	offset atomic.Int64 // nanoseconds to add to time.Now
}

// now is the Redis's time, as of the last sync.
func (k *redisClock) now() time.Time { return time.Now().Add(time.Duration(k.offset.Load())) }

// sync reads the Redis's time and keeps its offset from this machine's,
// taking the reply as read halfway through the round trip.
func (k *redisClock) sync(ctx context.Context) error {
	t0 := time.Now()
	rt, err := k.c.Time(ctx).Result()
	if err != nil {
		return err
	}
	mid := t0.Add(time.Since(t0) / 2)
	k.offset.Store(int64(rt.Sub(mid)))
	return nil
}

// urlError is why rawURL is no Redis URL, without the URL itself: the
// errors of url.Parse quote it, password included (the Redis client's own
// name only the path and the query).
func urlError(err error) string {
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		return "the value is not a URL (" + ue.Err.Error() + ")"
	}
	return strings.TrimPrefix(err.Error(), "redis: ")
}

// New returns a store on the client c whose keys start with prefix, with
// o's limits (zero fields take their defaults). Closing the store closes c.
func New(c *redis.Client, prefix string, o tasks.Options) *Store {
	return &Store{c: c, o: o.WithDefaults(), prefix: prefix, addr: c.Options().Addr, maxApprovals: maxApprovals}
}

// wrap makes err, from the Redis client, an error that says where the
// Redis is and what to check.
func (s *Store) wrap(err error) error {
	if err == nil {
		return nil
	}
	var rerr redis.Error
	if errors.As(err, &rerr) && (strings.HasPrefix(rerr.Error(), "WRONGPASS") || strings.HasPrefix(rerr.Error(), "NOAUTH")) {
		return fmt.Errorf("the Redis at %s refused the user or password of --task-store (%s); check them", s.addr, strings.TrimSuffix(rerr.Error(), "."))
	}
	if errors.As(err, &rerr) && !errors.Is(err, redis.ErrClosed) {
		return fmt.Errorf("the Redis at %s refused a command of the task store: %w; check that it is Redis 6.2 or later, not a cluster, and that the user of --task-store may run scripts on the keys and channels %s* (SECURITY.md gives its ACL rules)", s.addr, err, DefaultPrefix)
	}
	return fmt.Errorf("toolhost could not reach Redis at %s: %w; check --task-store, and that the Redis is up", s.addr, err)
}

// keys are the six keys the scripts take for the task with that id and
// owner (see scripts.go).
func (s *Store) keys(id, owner string) []string {
	return []string{s.prefix + "task:" + id, s.prefix + "index", s.prefix + "active", s.prefix + "owner:" + owner, s.prefix + "bytes", s.prefix + "sizes"}
}

// cancelChannel is the pub/sub channel on which the cancels of owner's
// tasks are announced.
func (s *Store) cancelChannel(owner string) string { return s.prefix + "cancel:" + owner }

// ms is t as Unix milliseconds, for scores.
func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// pttl is a key TTL of d plus keySlack, in ms, d below 0 counting as 0.
func pttl(d time.Duration) string {
	return strconv.FormatInt((max(d, 0) + keySlack).Milliseconds(), 10)
}

// placement is where a task goes in the index and the active set, and how
// long its key and its owner's set live, as the scripts take them.
func (s *Store) placement(t *tasks.Task, now time.Time) (drop, lease, keyTTL, ownerTTL string) {
	ownerTTL = pttl(s.o.Lease + s.o.TTL)
	if t.Status.Terminal() {
		return ms(t.ExpiresAt), "", pttl(t.ExpiresAt.Sub(now)), ownerTTL
	}
	// An unfinished task whose lease runs out is failed by Reap and kept
	// for the retention time; if no replica reaps it, it goes then.
	end := t.LeaseExpires.Add(s.o.TTL)
	return ms(end), ms(t.LeaseExpires), pttl(end.Sub(now)), ownerTTL
}

// Create implements tasks.Store.
func (s *Store) Create(ctx context.Context, t tasks.Task) error {
	if t.ID == "" || t.Status != tasks.Working {
		return fmt.Errorf("tasks: Create needs an id and status working (got %q, %q)", t.ID, t.Status)
	}
	now := s.o.Now()
	s.o.Stamp(&t, now)
	b, err := json.Marshal(&t)
	if err != nil {
		return err
	}
	drop, lease, keyTTL, ownerTTL := s.placement(&t, now)
	for attempt := 0; ; attempt++ {
		res, err := createScript().Run(ctx, s.c, s.keys(t.ID, t.Owner), t.ID, b, t.Size(), s.o.MaxTasks, s.o.MaxResultBytes, drop, lease, keyTTL, ownerTTL).Text()
		if err != nil {
			return s.wrap(err)
		}
		switch res {
		case "ok":
			return nil
		case "exists":
			return tasks.ErrExists
		case "big":
			return fmt.Errorf("%w of %d bytes", tasks.ErrResultTooLarge, s.o.MaxResultBytes)
		case "full":
			if attempt > 0 {
				return fmt.Errorf("%w: %d, the most this server keeps", tasks.ErrTooManyTasks, s.o.MaxTasks)
			}
			if err := s.trim(ctx, now); err != nil {
				return err
			}
		default:
			return fmt.Errorf("redisstore: create answered %q", res)
		}
	}
}

// trim drops the tasks whose time has passed by now.
func (s *Store) trim(ctx context.Context, now time.Time) error {
	keys := []string{s.prefix + "index", s.prefix + "active", s.prefix + "bytes", s.prefix + "sizes"}
	for {
		n, err := trimScript().Run(ctx, s.c, keys, ms(now), s.prefix).Int()
		if err != nil {
			return s.wrap(err)
		}
		if n < 1000 {
			return nil
		}
	}
}

// read returns the task with that id as stored (its JSON and decoded), or
// ErrNotFound when there is none or it is past its ExpiresAt.
func (s *Store) read(ctx context.Context, id string, now time.Time) ([]byte, tasks.Task, error) {
	b, err := s.c.Get(ctx, s.prefix+"task:"+id).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, tasks.Task{}, tasks.ErrNotFound
	}
	if err != nil {
		return nil, tasks.Task{}, s.wrap(err)
	}
	var t tasks.Task
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, tasks.Task{}, fmt.Errorf("the task %s in the Redis at %s is not a task toolhost wrote (%v); is another program using the keys %s*?", id, s.addr, err, s.prefix)
	}
	if expired(&t, now) {
		return nil, tasks.Task{}, tasks.ErrNotFound
	}
	return b, t, nil
}

// expired reports whether t is a finished task past its retention.
func expired(t *tasks.Task, now time.Time) bool {
	return t.Status.Terminal() && !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt)
}

// Get implements tasks.Store. An unfinished task whose lease has run out
// is settled as failed here, as Reap would: whoever reads the task of a
// replica that died learns that it failed, and why.
func (s *Store) Get(ctx context.Context, id string) (tasks.Task, error) {
	now := s.o.Now()
	_, t, err := s.read(ctx, id, now)
	if err != nil || t.Status.Terminal() || now.Before(t.LeaseExpires) {
		return t, err
	}
	t, _, err = s.reapOne(ctx, id)
	return t, err
}

// errNoChange is what an update's fn returns to store nothing and return
// the task as it is.
var errNoChange = errors.New("no change")

// Update implements tasks.Store.
func (s *Store) Update(ctx context.Context, id string, fn func(*tasks.Task) error) (tasks.Task, error) {
	return s.update(ctx, id, true, fn)
}

// update is Update; touch says whether a change sets LastUpdatedAt (a
// lease renewal does not). An fn that returns errNoChange stores nothing,
// and update returns the task as read.
func (s *Store) update(ctx context.Context, id string, touch bool, fn func(*tasks.Task) error) (tasks.Task, error) {
	for range maxAttempts {
		now := s.o.Now()
		raw, cur, err := s.read(ctx, id, now)
		if err != nil {
			return tasks.Task{}, err
		}
		next := cur
		if err := fn(&next); errors.Is(err, errNoChange) {
			return cur, nil
		} else if err != nil {
			return tasks.Task{}, err
		}
		next.ID, next.Owner = cur.ID, cur.Owner
		if cur.Status.Terminal() && next.Status != cur.Status {
			return tasks.Task{}, tasks.ErrTerminal
		}
		if touch {
			next.LastUpdatedAt = now
		}
		if next.Status.Terminal() && !cur.Status.Terminal() {
			next.ExpiresAt = now.Add(s.o.TTL)
		}
		b, err := json.Marshal(&next)
		if err != nil {
			return tasks.Task{}, err
		}
		sum := sha1.Sum(raw)
		drop, lease, keyTTL, ownerTTL := s.placement(&next, now)
		res, err := casScript().Run(ctx, s.c, s.keys(id, cur.Owner), id, hex.EncodeToString(sum[:]), b, next.Size(), s.o.MaxResultBytes, drop, lease, keyTTL, ownerTTL).Text()
		if err != nil {
			return tasks.Task{}, s.wrap(err)
		}
		switch res {
		case "ok":
			return next, nil
		case "gone":
			return tasks.Task{}, tasks.ErrNotFound
		case "big":
			return tasks.Task{}, fmt.Errorf("%w of %d bytes", tasks.ErrResultTooLarge, s.o.MaxResultBytes)
		case "conflict":
			continue
		default:
			return tasks.Task{}, fmt.Errorf("redisstore: update answered %q", res)
		}
	}
	return tasks.Task{}, fmt.Errorf("the task %s in the Redis at %s changed under %d updates in a row; try again", id, s.addr, maxAttempts)
}

// List implements tasks.Store: it reads every task of the index (at most
// MaxTasks, once trimmed), or with Owner and Active set, those of the
// owner's set.
func (s *Store) List(ctx context.Context, f tasks.Filter) ([]tasks.Task, error) {
	now := s.o.Now()
	if err := s.trim(ctx, now); err != nil {
		return nil, err
	}
	var ids []string
	var err error
	if f.Owner != "" && f.Active {
		// The unfinished tasks of one replica (at shutdown): its own set,
		// rather than every task kept and its result.
		ids, err = s.c.SMembers(ctx, s.prefix+"owner:"+f.Owner).Result()
	} else {
		ids, err = s.c.ZRange(ctx, s.prefix+"index", 0, -1).Result()
	}
	if err != nil {
		return nil, s.wrap(err)
	}
	var out []tasks.Task
	for len(ids) > 0 {
		n := min(len(ids), 100)
		keys := make([]string, n)
		for i, id := range ids[:n] {
			keys[i] = s.prefix + "task:" + id
		}
		ids = ids[n:]
		vals, err := s.c.MGet(ctx, keys...).Result()
		if err != nil {
			return nil, s.wrap(err)
		}
		for _, v := range vals {
			str, ok := v.(string)
			if !ok {
				continue // dropped meanwhile
			}
			var t tasks.Task
			if json.Unmarshal([]byte(str), &t) != nil || expired(&t, now) {
				continue
			}
			if f.Owner != "" && t.Owner != f.Owner || f.Active && t.Status.Terminal() {
				continue
			}
			out = append(out, t)
		}
	}
	return out, nil
}

// RequestCancel implements tasks.Store. Beside marking the task, it
// announces the cancel on its owner's channel, so that the owner, when it
// watches (WatchCancels), stops the task at once rather than at its next
// heartbeat.
func (s *Store) RequestCancel(ctx context.Context, id string) (tasks.Task, error) {
	t, err := s.update(ctx, id, true, func(t *tasks.Task) error {
		if t.Status.Terminal() || t.CancelRequested {
			return errNoChange
		}
		t.CancelRequested = true
		return nil
	})
	if err != nil || t.Status.Terminal() {
		return t, err
	}
	// When the announcement is lost, the owner's heartbeat finds the mark.
	_ = s.c.Publish(ctx, s.cancelChannel(t.Owner), t.ID).Err()
	return t, nil
}

// WatchCancels calls stop with the id of each task of owner whose cancel is
// requested, on any replica, until ctx ends. It is a fast path: a cancel
// announced while the subscription is down (the Redis restarted) is still
// found by the owner's next Heartbeat.
func (s *Store) WatchCancels(ctx context.Context, owner string, stop func(id string)) {
	s.watchCancels(ctx, owner, stop, func() {})
}

// watchCancels is WatchCancels; it calls subscribed once the subscription
// is in place.
func (s *Store) watchCancels(ctx context.Context, owner string, stop func(id string), subscribed func()) {
	sub := s.c.Subscribe(ctx, s.cancelChannel(owner))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err == nil {
		subscribed()
	}
	ch := sub.Channel()
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			stop(m.Payload)
		}
	}
}

// Heartbeat implements tasks.Store.
func (s *Store) Heartbeat(ctx context.Context, owner string) ([]string, error) {
	ownerKey := s.prefix + "owner:" + owner
	ids, err := s.c.SMembers(ctx, ownerKey).Result()
	if err != nil {
		return nil, s.wrap(err)
	}
	var cancel []string
	for _, id := range ids {
		t, err := s.update(ctx, id, false, func(t *tasks.Task) error {
			if t.Status.Terminal() || t.Owner != owner {
				return errNoChange
			}
			t.LeaseExpires = s.o.Now().Add(s.o.Lease)
			return nil
		})
		switch {
		case errors.Is(err, tasks.ErrNotFound):
			s.c.SRem(ctx, ownerKey, id)
			continue
		case err != nil:
			return cancel, err
		}
		if !t.Status.Terminal() && t.CancelRequested {
			cancel = append(cancel, id)
		}
	}
	return cancel, nil
}

// Reap implements tasks.Store.
func (s *Store) Reap(ctx context.Context) (int, error) {
	if s.clock != nil {
		if err := s.clock.sync(ctx); err != nil {
			return 0, s.wrap(err)
		}
	}
	now := s.o.Now()
	if err := s.trim(ctx, now); err != nil {
		return 0, err
	}
	ids, err := s.c.ZRangeByScore(ctx, s.prefix+"active", &redis.ZRangeBy{Min: "-inf", Max: ms(now)}).Result()
	if err != nil {
		return 0, s.wrap(err)
	}
	failed := 0
	for _, id := range ids {
		_, did, err := s.reapOne(ctx, id)
		switch {
		case errors.Is(err, tasks.ErrNotFound):
			s.c.ZRem(ctx, s.prefix+"active", id)
		case err != nil:
			return failed, err
		case did:
			failed++
		}
	}
	return failed, nil
}

// reapOne settles the task as failed when it is unfinished and its lease
// has run out, and reports whether it did.
func (s *Store) reapOne(ctx context.Context, id string) (tasks.Task, bool, error) {
	did := false
	t, err := s.update(ctx, id, true, func(t *tasks.Task) error {
		if t.Status.Terminal() || s.o.Now().Before(t.LeaseExpires) {
			did = false
			return errNoChange
		}
		tasks.SettleFailed(t, tasks.LostOwnerError(t.Owner))
		did = true
		return nil
	})
	return t, did, err
}

// FirstUse implements host.StateGuard across replicas: it records the
// nonce as used until until, and reports whether it was not yet. Like the
// in-memory guard, it remembers at most maxApprovals unexpired nonces and
// refuses new ones past that (a state is then refused, not let through).
func (s *Store) FirstUse(ctx context.Context, nonce string, until time.Time) (bool, error) {
	now := time.Now()
	ttl := strconv.FormatInt((max(until.Sub(now), 0) + keySlack).Milliseconds(), 10)
	res, err := firstUseScript().Run(ctx, s.c, []string{s.prefix + "approvals"}, nonce, ms(until), ms(now), s.maxApprovals, ttl).Text()
	if err != nil {
		return false, s.wrap(err)
	}
	switch res {
	case "ok":
		return true, nil
	case "used":
		return false, nil
	case "full":
		return false, fmt.Errorf("more than %d approvals were answered across the replicas in the last few minutes for the shared store to remember them all; try again in a few minutes", s.maxApprovals)
	}
	return false, fmt.Errorf("redisstore: first use answered %q", res)
}

// Close implements tasks.Store: it closes the connection to Redis.
func (s *Store) Close() error { return s.c.Close() }

// Addr is the host:port of the store's Redis.
func (s *Store) Addr() string { return s.addr }
