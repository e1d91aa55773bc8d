//go:build unix

package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolhost/toolhost/internal/tasks"
	"github.com/toolhost/toolhost/internal/tasks/redisstore"
	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/toolhost/toolhost/internal/testredis"
)

// openRedisStore opens the task store of one replica on the Redis at url,
// as serve --task-store does: each replica a client of its own.
func openRedisStore(t *testing.T, url string, limits tasks.Options) tasks.Store {
	t.Helper()
	st, err := tasks.Open(context.Background(), url, limits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// startRedisReplica starts a stateless HTTP replica of tasksConfig whose
// tasks are kept in the Redis at url.
func startRedisReplica(t *testing.T, url string, limits tasks.Options) (*httpEnv, tasks.Store) {
	t.Helper()
	st := openRedisStore(t, url, limits)
	return startHTTPConfig(t, HTTPOptions{Stateless: true}, tasksConfig, Tasks(TaskOptions{Store: st, Limits: limits})), st
}

// readPID reads the pid a sleeper task wrote.
func readPID(t *testing.T, pidfile string) int {
	t.Helper()
	waitForFile(t, pidfile)
	b, _ := os.ReadFile(pidfile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestTasksRedisReplicas: two stateless replicas share a real redis-server
// and no affinity: a task created on one is polled and cancelled on the
// other, the cancel kills the command on the replica that runs it, and
// what Redis keeps of a result is redacted. TestTasksAcrossReplicas runs the same over a shared memory
// store, and answers a question on the other replica too.
func TestTasksRedisReplicas(t *testing.T) {
	srv := testredis.Start(t)
	ea, _ := startRedisReplica(t, srv.URL, tasks.Options{})
	eb, _ := startRedisReplica(t, srv.URL, tasks.Options{})
	a, b := httpTaskWire{e: ea, ext: true}, httpTaskWire{e: eb, ext: true}

	t.Run("result read on the other replica", func(t *testing.T) {
		task := waitTerminal(t, b, mustCreate(t, a, "quick", map[string]any{"word": "shared"}))
		if task["status"] != "completed" || taskText(task) != "done shared" {
			t.Fatalf("task on the other replica: %v", task)
		}
	})
	t.Run("secrets redacted in Redis", func(t *testing.T) {
		id := mustCreate(t, a, "leaky", nil)
		if task := waitTerminal(t, b, id); task["status"] != "completed" {
			t.Fatalf("task %v", task)
		}
		c := redis.NewClient(&redis.Options{Addr: srv.Addr})
		defer c.Close()
		keys, err := c.Keys(t.Context(), redisstore.DefaultPrefix+"*").Result()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, k := range keys {
			v, _ := c.Get(t.Context(), k).Result()
			found = found || strings.Contains(k, id)
			if strings.Contains(v, "tok-SECRET-7654321") {
				t.Fatalf("Redis key %s holds the secret: %s", k, v)
			}
		}
		if !found {
			t.Fatalf("no key of task %s among %v", id, keys)
		}
	})
	t.Run("cancel on the other replica kills the command", func(t *testing.T) {
		pidfile := filepath.Join(t.TempDir(), "pid")
		id := mustCreate(t, a, "sleeper", map[string]any{"pidfile": pidfile})
		pid := readPID(t, pidfile)
		if task, code, msg := b.call(t, "tasks/get", map[string]any{"taskId": id}); code != 0 || task["status"] != "working" {
			t.Fatalf("tasks/get on the other replica: %v %d %s", task, code, msg)
		}
		if ack, code, msg := b.call(t, "tasks/cancel", map[string]any{"taskId": id}); code != 0 || ack["resultType"] != "complete" {
			t.Fatalf("cancel: %v %d %s", ack, code, msg)
		}
		// With the default lease of 30s, the replica running the task
		// heartbeats every 10s; the cancel reaches it sooner, over
		// pub/sub (redisstore's TestCancelReachesOwnerAtOnce).
		if task := waitTerminal(t, b, id); task["status"] != "cancelled" {
			t.Fatalf("task %v", task)
		}
		testconfig.WaitFor(t, "the command is gone", func() bool {
			return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
		})
	})
}

// TestTaskReplicaDies: a replica that dies mid-task (it loses Redis, its
// heartbeats stop, it never settles the task) leaves the task working in
// Redis only until its lease runs out; the other replica then reports it
// failed, with the reason.
func TestTaskReplicaDies(t *testing.T) {
	srv := testredis.Start(t)
	limits := tasks.Options{Lease: 2 * time.Second}
	ea, sta := startRedisReplica(t, srv.URL, limits)
	eb, _ := startRedisReplica(t, srv.URL, limits)
	a, b := httpTaskWire{e: ea, ext: true}, httpTaskWire{e: eb, ext: true}
	defer KillCommands()

	pidfile := filepath.Join(t.TempDir(), "pid")
	id := mustCreate(t, a, "sleeper", map[string]any{"pidfile": pidfile})
	readPID(t, pidfile)
	// The replica dies: its Redis client goes first, so that neither a
	// heartbeat nor the settling at shutdown reaches the store.
	if err := sta.Close(); err != nil {
		t.Fatal(err)
	}
	_ = ea.stop()
	ea.srv.Shutdown()
	ea.srv.SettleTasks(t.Context())

	task := waitTerminal(t, b, id)
	e, _ := task["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if task["status"] != "failed" || !strings.Contains(msg, "stopped before it finished") || task["statusMessage"] == nil {
		t.Fatalf("task of the dead replica: %v", task)
	}
}

// TestMRTRReplayRefusedAcrossReplicas: with the replicas' approvals kept in
// Redis, a requestState used on one replica is refused on the other.
func TestMRTRReplayRefusedAcrossReplicas(t *testing.T) {
	srv := testredis.Start(t)
	key := []byte(strings.Repeat("k", MinStateKeyLen))
	clock := &testClock{t: time.Now()}
	guard := func() ServerOption {
		return UseStateGuard(openRedisStore(t, srv.URL, tasks.Options{}).(StateGuard))
	}
	r1 := startReplica(t, mrtrConfig, key, clock, guard())
	r2 := startReplica(t, mrtrConfig, key, clock, guard())
	prod := map[string]any{"env": "prod"}
	state := askedFor(t, callNew(t, r1, "deploy", prod, nil), inputKeyConfirm)
	if r := callNew(t, r2, "deploy", prod, answer(state, inputKeyConfirm, "accept", nil)); r.Error != nil || r.text() != "deployed prod" {
		t.Fatalf("first use, on replica 2: %+v, error %v", r.Result, r.Error)
	}
	r := callNew(t, r1, "deploy", prod, answer(state, inputKeyConfirm, "accept", nil))
	if r.Error == nil || !strings.Contains(r.Error.Message, "used already") {
		t.Fatalf("replayed on replica 1: %+v, error %v; want it refused as used already", r.Result, r.Error)
	}
}
