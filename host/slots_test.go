package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// loadSource compiles an HCL config written to a temporary file.
func loadSource(t *testing.T, src string) *Registry {
	t.Helper()
	return loadSourceWith(t, src, nil)
}

// loadSourceWith is loadSource with files beside the config: their paths,
// relative to its directory, and their contents.
func loadSourceWith(t *testing.T, src string, files map[string]string) *Registry {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, diags := Load([]string{p}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
	if diags.HasErrors() {
		t.Fatalf("Load:\n%s", thcl.FormatDiagnostics(diags))
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// holdTheSlot starts a call of gateConfig's gate tool, which holds its
// slot until DIR/go exists, and waits until it runs. It returns DIR, the
// call's arguments, a channel closed when the call returns, and the
// deadline the caller's own waits share.
func holdTheSlot(t *testing.T, r *Registry) (dir string, args json.RawMessage, first chan struct{}, deadline time.Time) {
	t.Helper()
	dir = t.TempDir()
	args, _ = json.Marshal(map[string]string{"dir": dir})
	first = make(chan struct{})
	go func() {
		defer close(first)
		_, _ = r.CallTool(context.Background(), "gate", args)
	}()
	deadline = time.Now().Add(10 * time.Second)
	for countStarted(dir) < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return dir, args, first, deadline
}

// gateConfig has a tool that notes that it started, in DIR/started, then
// waits until DIR/go exists.
var gateConfig = `
server {
  max_concurrent_calls = %d
}
tool "gate" {
  description = "waits for the test"
  param "dir" { type = string }
  exec {
    ` + helperCommand(`"mark"`, `"${param.dir}/started"`, `"await"`, `"${param.dir}/go"`, `"echo"`, `"done"`) + `
  }
}
`

func countStarted(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "started"))
	return strings.Count(string(b), "x")
}

// TestMaxConcurrentCalls: no more backends run at once than
// max_concurrent_calls; the others wait, and all finish.
func TestMaxConcurrentCalls(t *testing.T) {
	r := loadSource(t, strings.Replace(gateConfig, "%d", "2", 1))
	dir := t.TempDir()
	args, _ := json.Marshal(map[string]string{"dir": dir})
	var wg sync.WaitGroup
	results := make([]string, 3)
	for i := range results {
		wg.Go(func() {
			res, err := r.CallTool(context.Background(), "gate", args)
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			results[i] = testconfig.ResultText(res)
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for countStarted(dir) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // a third start would show by now
	if n := countStarted(dir); n != 2 {
		t.Fatalf("%d calls running, want 2 (max_concurrent_calls)", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if n := countStarted(dir); n != 3 {
		t.Errorf("%d calls ran, want 3", n)
	}
	for i, text := range results {
		if text != "done\n" {
			t.Errorf("call %d = %q", i, text)
		}
	}
}

// TestHeartbeatWhileWaitingForASlot: a call in line for a slot gets
// heartbeats that say it waits, not that it runs; once it has its slot,
// they say it runs.
func TestHeartbeatWhileWaitingForASlot(t *testing.T) {
	src := strings.Replace(gateConfig, "%d", "1", 1)
	src = strings.Replace(src, "server {", "server {\n  progress_heartbeat = \"50ms\"", 1)
	r := loadSource(t, src)
	dir, args, first, deadline := holdTheSlot(t, r)
	peer := &recordingPeer{progress: true}
	second := make(chan struct{})
	go func() {
		defer close(second)
		_, _ = r.CallToolFrom(context.Background(), "gate", args, peer)
	}()
	for len(peer.snapshot()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for _, e := range peer.snapshot() {
		if !strings.Contains(e, "waiting for") || !strings.Contains(e, "max_concurrent_calls") {
			t.Errorf("heartbeat %q of a call in line does not say it waits", e)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	<-first
	<-second
}

// TestMaxConcurrentCallsCancelWhileWaiting: a call cancelled while it waits
// for a slot says why, and never runs.
func TestMaxConcurrentCallsCancelWhileWaiting(t *testing.T) {
	r := loadSource(t, strings.Replace(gateConfig, "%d", "1", 1))
	dir, args, first, _ := holdTheSlot(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := r.CallTool(ctx, "gate", args)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(testconfig.ResultText(res), "max_concurrent_calls") {
		t.Errorf("waiting call = %v %q, want an error naming max_concurrent_calls", res.IsError, testconfig.ResultText(res))
	}
	if n := countStarted(dir); n != 1 {
		t.Errorf("%d calls started, want 1", n)
	}
	_ = os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	<-first
}

// TestMaxConcurrentCallsAcrossReload: a reload that keeps the limit keeps
// the slots. With max_concurrent_calls = 1, a call running when a new
// registry goes into service holds the one slot: a call on the new
// registry waits for it, as it would have without the reload. A new limit
// starts afresh.
func TestMaxConcurrentCallsAcrossReload(t *testing.T) {
	for _, tc := range []struct {
		name     string
		newLimit int
		// wantWait: the call on the new registry waits for the first.
		wantWait bool
	}{
		{"same limit", 1, true},
		{"new limit", 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := NewServer(loadSource(t, strings.Replace(gateConfig, "%d", "1", 1)), nil)
			dir := t.TempDir()
			args, _ := json.Marshal(map[string]string{"dir": dir})
			first := make(chan struct{})
			go func() {
				defer close(first)
				_, _ = srv.CallTool(context.Background(), "gate", args)
			}()
			deadline := time.Now().Add(10 * time.Second)
			for countStarted(dir) < 1 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			// A comment changes nothing clients see; the registry is new.
			next := loadSource(t, strings.Replace(gateConfig, "%d", fmt.Sprint(tc.newLimit), 1)+"# edited\n")
			if old, _ := srv.Apply(next); old != nil {
				defer old.Retire()
			}
			second := make(chan struct{})
			go func() {
				defer close(second)
				_, _ = srv.CallTool(context.Background(), "gate", args)
			}()
			want := map[bool]int{true: 1, false: 2}[tc.wantWait]
			// A second start would show by now; one that may start is
			// waited for (a process starts slowly under wine).
			time.Sleep(300 * time.Millisecond)
			for deadline := time.Now().Add(10 * time.Second); countStarted(dir) < want && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if n := countStarted(dir); n != want {
				t.Fatalf("%d calls running after the reload, want %d", n, want)
			}
			if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			<-first
			<-second
			if n := countStarted(dir); n != 2 {
				t.Errorf("%d calls ran, want 2", n)
			}
		})
	}
}

// TestMaxConcurrentCallsResourceReads: reads of resources served by a
// backend share the max_concurrent_calls slots with tool calls, so that a
// client cannot start more commands at once through resources/read.
func TestMaxConcurrentCallsResourceReads(t *testing.T) {
	dir := t.TempDir()
	r := loadSource(t, `
server {
  max_concurrent_calls = 2
}
resource_template "gate" {
  uri_template = "gate:///{n}"
  exec {
    `+helperCommand(`"mark"`, testconfig.HCLString(dir+"/started"), `"await"`, testconfig.HCLString(dir+"/go"), `"echo"`, `"done"`, `param.n`)+`
  }
}
`)
	var wg sync.WaitGroup
	results := make([]string, 3)
	for i := range results {
		wg.Go(func() {
			res, err := r.ReadResource(context.Background(), fmt.Sprintf("gate:///%d", i))
			if err != nil {
				t.Errorf("read %d: %v", i, err)
				return
			}
			results[i] = res.Contents[0].Text
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for countStarted(dir) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // a third start would show by now
	if n := countStarted(dir); n != 2 {
		t.Fatalf("%d reads running, want 2 (max_concurrent_calls)", n)
	}
	// A read cancelled while it waits says why, and runs nothing.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := r.ReadResource(ctx, "gate:///9"); err == nil || !strings.Contains(err.Error(), "max_concurrent_calls") {
		t.Errorf("waiting read: %v; want an error naming max_concurrent_calls", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if n := countStarted(dir); n != 3 {
		t.Errorf("%d reads ran, want 3", n)
	}
	for i, text := range results {
		if text != fmt.Sprintf("done %d\n", i) {
			t.Errorf("read %d = %q", i, text)
		}
	}
}
