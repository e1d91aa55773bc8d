//go:build unix

package host

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFailingBackends runs tools whose upstreams and commands misbehave in
// every way the hardening issue lists: each call must end as an isError
// result with a short message that says what happened, within the tool's
// timeout, and leave no goroutine, file descriptor or process behind.
func TestFailingBackends(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	mux.HandleFunc("/reset", func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}
	})
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "database unavailable", http.StatusInternalServerError)
	})
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!DOCTYPE html><html><body>Sign in</body></html>")
	})
	mux.HandleFunc("/truncated", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"value": 12, "items": [1, 2`)
	})
	mux.HandleFunc("/shape", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"value": {"nested": true}}`)
	})
	upstream := httptest.NewServer(mux)
	defer upstream.Close()

	mark := fmt.Sprintf("failing-%d-%d", os.Getpid(), time.Now().UnixNano())
	cfg := fmt.Sprintf(`
tool "fetch" {
  description = "http with a result mapping"
  param "path" { type = string }
  http {
    url     = "%s/${param.path}"
    timeout = "500ms"
  }
  result {
    field "value" {
      path = "value"
      type = number
    }
  }
}
tool "hang" {
  description = "never finishes"
  exec {
    command = ["sleep", "60"]
    env     = { SOAK_MARK = "%[2]s" }
    timeout = "300ms"
  }
}
tool "forker" {
  description = "leaves a child running after it exits"
  exec {
    command = ["sh", "-c", "sleep 60 & echo started"]
    env     = { SOAK_MARK = "%[2]s" }
    timeout = "5s"
  }
}
tool "flood" {
  description = "prints a gigabyte"
  exec {
    command    = ["head", "-c", "1073741824", "/dev/zero"]
    timeout    = "20s"
    max_output = 1024
  }
}
tool "fails" {
  description = "exits 3"
  exec { command = ["sh", "-c", "echo 'disk full' >&2; exit 3"] }
}
tool "missing" {
  description = "a program that is not installed"
  exec { command = ["toolhost-no-such-program"] }
}
`, upstream.URL, mark)
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, diags := Load([]string{path}, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}

	runtime.GC()
	baseGoroutines, baseFDs := runtime.NumGoroutine(), openFDs(t)
	for _, tc := range []struct {
		name, tool, args string
		want             string // in the error text
		isError          bool
	}{
		{"upstream times out", "fetch", `{"path":"hang"}`, "timed out after 500ms", true},
		{"connection reset", "fetch", `{"path":"reset"}`, "127.0.0.1", true},
		{"5xx", "fetch", `{"path":"500"}`, "HTTP 500 Internal Server Error: database unavailable", true},
		{"HTML instead of JSON", "fetch", `{"path":"html"}`, "not JSON", true},
		{"truncated JSON", "fetch", `{"path":"truncated"}`, "not JSON", true},
		{"JSON of another shape", "fetch", `{"path":"shape"}`, `result field "value"`, true},
		{"command hangs", "hang", `{}`, "timed out after 300ms", true},
		{"command leaves a child", "forker", `{}`, "started", false},
		{"command prints a gigabyte", "flood", `{}`, "truncated", false},
		{"non-zero exit", "fails", `{}`, "status 3: disk full", true},
		{"program missing", "missing", `{}`, `"toolhost-no-such-program" not found`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, err := reg.CallTool(context.Background(), tc.tool, []byte(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError != tc.isError || !strings.Contains(text, tc.want) {
				t.Fatalf("isError=%v %q; want isError=%v containing %q", res.IsError, text, tc.isError, tc.want)
			}
			if res.IsError && res.StructuredContent != nil {
				t.Errorf("an error result carries structuredContent: %s", res.StructuredContent)
			}
			if len(text) > 2000 {
				t.Errorf("message of %d bytes; keep it short", len(text))
			}
			t.Logf("%v: %.120s", time.Since(start).Round(time.Millisecond), text)
		})
	}
	reg.Close()

	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		g, fds, kids := runtime.NumGoroutine(), openFDs(t), childProcesses(mark)
		if g <= baseGoroutines+2 && fds <= baseFDs+2 && kids == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("left behind: %d goroutines (baseline %d), %d fds (baseline %d), %d child processes", g, baseGoroutines, fds, baseFDs, kids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
