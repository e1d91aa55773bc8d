//go:build unix

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const soakConfig = `
tool "greet" {
  description = "template with constraints"
  param "name" {
    type       = string
    min_length = 1
    max_length = 20
  }
  param "times" {
    type    = integer
    default = 1
    minimum = 1
    maximum = 3
  }
  template { text = "hello ${param.name} x${param.times}%s" }
}
tool "echo" {
  description = "exec"
  param "text" { type = string }
  exec {
    command = ["printf", "%%s", param.text]
    timeout = "5s"
  }
}
tool "fetch" {
  description = "http with a result mapping"
  param "mode" {
    type = string
    enum = ["ok", "fail", "html", "slow"]
  }
  http {
    url     = "%s/${param.mode}"
    timeout = "2s"
  }
  result {
    field "value" {
      path = "value"
      type = number
    }
  }
}
tool "spawn" {
  description = "exec that leaves a background process behind"
  param "text" { type = string }
  exec {
    command = ["sh", "-c", "sleep 30 & printf %%s \"$1\"", "sh", param.text]
    env     = { SOAK_MARK = "%s" }
    timeout = "5s"
  }
}
`

func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(entries)
}

// childProcesses counts live processes whose parent is this one, and live
// processes whose environment holds mark, wherever they were reparented
// (a command's background child outlives its parent).
func childProcesses(mark string) int {
	me := strconv.Itoa(os.Getpid())
	n := 0
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 || fields[0] == "Z" {
			continue
		}
		if fields[1] == me {
			n++
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if strings.Contains("\x00"+string(env), "\x00SOAK_MARK="+mark+"\x00") {
			n++
		}
	}
	return n
}

// TestSoak makes 10,000 calls with random valid and invalid arguments over
// an SDK client, while the config reloads concurrently, and then checks
// that goroutines, open files and child processes are back to baseline.
func TestSoak(t *testing.T) {
	calls := 10000
	if testing.Short() {
		calls = 1000
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			fmt.Fprint(w, `{"value": 42}`)
		case "/fail":
			http.Error(w, "upstream broke", http.StatusBadGateway)
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>not json</html>")
		case "/slow":
			time.Sleep(50 * time.Millisecond)
			fmt.Fprint(w, `{"value": 1.5}`)
		}
	}))
	defer upstream.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.hcl")
	mark := fmt.Sprintf("soak-%d-%d", os.Getpid(), time.Now().UnixNano())
	write := func(variant string) {
		if err := os.WriteFile(path, []byte(fmt.Sprintf(soakConfig, variant, upstream.URL, mark)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("")

	runtime.GC()
	baseGoroutines := runtime.NumGoroutine()
	baseFDs := openFDs(t)

	func() {
		reg, diags := Load([]string{path}, nil)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		logger := slog.New(slog.NewTextHandler(io.Discard, nil))
		srv := NewServer(reg, logger)
		reloader := &Reloader{Paths: []string{path}, Server: srv, Logger: logger, Diagnostics: io.Discard}
		reloader.Prime(reg)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "soak"}, nil)
		cs, err := client.Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}

		stopReload := make(chan struct{})
		var reloads atomic.Int64
		var reloadWG sync.WaitGroup
		reloadWG.Add(1)
		go func() {
			defer reloadWG.Done()
			for i := 0; ; i++ {
				select {
				case <-stopReload:
					return
				case <-time.After(15 * time.Millisecond):
				}
				if i%7 == 6 {
					os.WriteFile(path, []byte("tool \"broken\" {"), 0o644)
				} else {
					write(strings.Repeat("!", i%3))
				}
				if res := reloader.Reload(ctx); res.Applied {
					reloads.Add(1)
				}
			}
		}()

		var ok, toolErrors, rpcErrors, unknownCalls atomic.Int64
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func(seed uint64) {
				defer wg.Done()
				rnd := rand.New(rand.NewPCG(seed, seed*7))
				for next.Add(1) <= int64(calls) {
					name, args := randomCall(rnd)
					if name == "missing_tool" {
						unknownCalls.Add(1)
					}
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
					switch {
					case err != nil:
						rpcErrors.Add(1)
					case res.IsError:
						toolErrors.Add(1)
					default:
						ok.Add(1)
					}
				}
			}(uint64(w + 1))
		}
		wg.Wait()
		close(stopReload)
		reloadWG.Wait()
		t.Logf("%d calls: %d ok, %d tool errors, %d protocol errors; %d reloads applied",
			calls, ok.Load(), toolErrors.Load(), rpcErrors.Load(), reloads.Load())
		if ok.Load() == 0 || toolErrors.Load() == 0 || reloads.Load() == 0 {
			t.Fatalf("the soak did not exercise successes, failures and reloads")
		}
		if rpcErrors.Load() != unknownCalls.Load() {
			t.Errorf("%d protocol errors for %d calls of an unknown tool: only those should be protocol errors", rpcErrors.Load(), unknownCalls.Load())
		}
		cs.Close()
		ss.Close()
		srv.Registry().Retire()
	}()

	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		g, fds, kids := runtime.NumGoroutine(), openFDs(t), childProcesses(mark)
		if g <= baseGoroutines+2 && fds <= baseFDs+2 && kids == 0 {
			t.Logf("after the soak: %d goroutines (baseline %d), %d fds (baseline %d), %d children", g, baseGoroutines, fds, baseFDs, kids)
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Fatalf("not back to baseline: %d goroutines (baseline %d), %d fds (baseline %d), %d child processes\n%s",
				g, baseGoroutines, fds, baseFDs, kids, buf[:n])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// randomCall picks a tool and arguments, about half of them invalid.
func randomCall(rnd *rand.Rand) (string, map[string]any) {
	switch rnd.IntN(10) {
	case 0, 1, 2:
		args := map[string]any{"name": strings.Repeat("x", rnd.IntN(25))}
		if rnd.IntN(2) == 0 {
			args["times"] = rnd.IntN(5)
		}
		if rnd.IntN(8) == 0 {
			args["extra"] = true
		}
		return "greet", args
	case 3:
		if rnd.IntN(4) == 0 {
			return "spawn", map[string]any{"text": "left a child"}
		}
		if rnd.IntN(3) == 0 {
			return "echo", map[string]any{"text": 12}
		}
		return "echo", map[string]any{"text": "$(id) `ls` ; " + strconv.Itoa(rnd.IntN(1000))}
	case 4, 5, 6, 7:
		modes := []string{"ok", "fail", "html", "slow", "bogus"}
		return "fetch", map[string]any{"mode": modes[rnd.IntN(len(modes))]}
	case 8:
		return "missing_tool", nil
	}
	var raw map[string]any
	_ = json.Unmarshal([]byte(`{"name": null, "times": "3"}`), &raw)
	return "greet", raw
}
