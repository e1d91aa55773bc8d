package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/toolhost/toolhost/internal/testredis"
)

// approve is a 2026-07-28 tools/call of deploy (confirmConfig), with the
// state and answer of a previous round when state is not empty.
func approve(state string) string {
	params := map[string]any{
		"name":      "deploy",
		"arguments": map[string]any{},
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
		},
	}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept"}}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	return string(b)
}

// approveReply is what the tests read of a reply to approve.
type approveReply struct {
	Result struct {
		RequestState string `json:"requestState"`
		Content      []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// postApprove sends approve(state) to s and decodes the reply, as JSON or
// as the one message of an event stream.
func postApprove(t *testing.T, s *httpServe, state string) approveReply {
	t.Helper()
	resp := s.mcpPost(approve(state), map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "deploy"}, false)
	b, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.SplitSeq(string(b), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				b = []byte(data)
			}
		}
	}
	var r approveReply
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("reply %q: %v", b, err)
	}
	return r
}

// TestServeTaskStoreTLS: --task-store rediss://... speaks TLS to a real
// redis-server and verifies its certificate: against the CA that
// SSL_CERT_FILE names it serves; against the system's roots alone it does
// not start, and says why.
func TestServeTaskStoreTLS(t *testing.T) {
	srv := testredis.StartTLS(t)
	cfg := writeConfig(t, confirmConfig)
	startHTTPServe(t, []string{"SSL_CERT_FILE=" + srv.CAFile}, "--task-store", srv.URL, cfg)
	cmd := exec.Command(binPath, "serve", "--listen", "127.0.0.1:0", "--task-store", srv.URL, cfg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if msg := stderr.String(); err == nil || !strings.Contains(msg, "toolhost could not reach Redis at "+srv.Addr) || !strings.Contains(msg, "certificate") {
		t.Fatalf("exit %v, stderr %q; want a failure naming the Redis and the certificate", err, msg)
	}
}

// TestServeTaskStoreRedis: --task-store redis://... with a real
// redis-server: two replicas given the same Redis take each other's
// approvals once and refuse a replayed one; --task-store-env takes the URL
// from the environment, refusing a variable unset, empty or misnamed; a
// Redis that cannot be reached or refuses the password stops serve with a
// message that names it and the flag, and never the URL's password.
func TestServeTaskStoreRedis(t *testing.T) {
	srv := testredis.Start(t)
	cfg := writeConfig(t, confirmConfig)
	key := "TOOLHOST_STATE_KEY=" + strings.Repeat("s", 44)
	args := []string{"--stateless", "--task-store", srv.URL, "--state-key-env", "TOOLHOST_STATE_KEY", cfg}

	t.Run("approvals single-use across replicas", func(t *testing.T) {
		r1 := startHTTPServe(t, []string{key}, args...)
		r2 := startHTTPServe(t, []string{key}, args...)
		state := postApprove(t, r1, "").Result.RequestState
		if state == "" {
			t.Fatal("no requestState from replica 1")
		}
		if r := postApprove(t, r2, state); r.Error != nil || len(r.Result.Content) == 0 || r.Result.Content[0].Text != "deployed" {
			t.Fatalf("answer on replica 2: %+v", r)
		}
		if r := postApprove(t, r1, state); r.Error == nil || !strings.Contains(r.Error.Message, "used already") {
			t.Fatalf("replay on replica 1: %+v, want it refused as used already", r)
		}
	})
	t.Run("URL from the environment", func(t *testing.T) {
		c := redis.NewClient(&redis.Options{Addr: srv.Addr})
		defer c.Close()
		if err := c.ConfigSet(t.Context(), "requirepass", "s3cret-pw").Err(); err != nil {
			t.Fatal(err)
		}
		defer c.ConfigSet(context.Background(), "requirepass", "")
		env := []string{key, "TOOLHOST_TASK_STORE=redis://:s3cret-pw@" + srv.Addr + "/0"}
		s := startHTTPServe(t, env, "--stateless", "--task-store-env", "TOOLHOST_TASK_STORE", "--state-key-env", "TOOLHOST_STATE_KEY", "--log-level", "debug", cfg)
		if state := postApprove(t, s, "").Result.RequestState; state == "" {
			t.Fatal("no requestState")
		}
		if strings.Contains(s.Log(), "s3cret-pw") {
			t.Fatalf("the log holds the password: %s", s.Log())
		}
		for _, tc := range []struct {
			name string
			env  []string
			args []string
			code int
			want string
		}{
			{"unset", nil, []string{"--task-store-env", "TOOLHOST_NO_SUCH_STORE"}, 1, "TOOLHOST_NO_SUCH_STORE is not set; set it to the task store's URL"},
			{"empty", []string{"TOOLHOST_EMPTY_STORE="}, []string{"--task-store-env", "TOOLHOST_EMPTY_STORE"}, 1, "TOOLHOST_EMPTY_STORE is empty"},
			{"not a name", nil, []string{"--task-store-env", "redis://:s3cret-pw@host"}, 2, "no variable's name"},
			{"both", env, []string{"--task-store-env", "TOOLHOST_TASK_STORE", "--task-store", "memory"}, 2, "give one"},
			{"wrong password", []string{"TOOLHOST_TASK_STORE=redis://:s3cret-pw-WRONG@" + srv.Addr}, []string{"--task-store-env", "TOOLHOST_TASK_STORE"}, 2, "refused the user or password of --task-store"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				cmd := exec.Command(binPath, append(append([]string{"serve", "--listen", "127.0.0.1:0"}, tc.args...), cfg)...)
				cmd.Env = append(os.Environ(), tc.env...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				var ee *exec.ExitError
				if msg := stderr.String(); !errors.As(err, &ee) || ee.ExitCode() != tc.code || !strings.Contains(msg, tc.want) || strings.Contains(msg, "s3cret-pw") {
					t.Fatalf("exit %v, stderr %q; want exit %d, %q, and no password", err, msg, tc.code, tc.want)
				}
			})
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		srv.Kill()
		cmd := exec.Command(binPath, "serve", "--listen", "127.0.0.1:0", "--task-store", "redis://toolhost:s3cret-pw@"+srv.Addr+"/0", cfg)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		msg := stderr.String()
		if !errors.As(err, &ee) || !strings.Contains(msg, "toolhost could not reach Redis at "+srv.Addr) || !strings.Contains(msg, "check --task-store") || strings.Contains(msg, "s3cret-pw") {
			t.Fatalf("exit %v, stderr %q; want a failure naming the Redis and --task-store, without the password", err, msg)
		}
	})
}

// TestServeWarnsUnsharedTasks: serve --listen --stateless with tools that
// run as tasks, and tasks kept in memory, warns that replicas do not share
// them; with sessions, or without task tools, it does not.
func TestServeWarnsUnsharedTasks(t *testing.T) {
	const taskTool = `
tool "long" {
  task = "optional"
  template { text = "done" }
}
`
	const plainTool = `
tool "short" {
  template { text = "done" }
}
`
	for _, tc := range []struct {
		name   string
		config string
		args   []string
		warn   bool
	}{
		{"stateless with a task tool", taskTool, []string{"--stateless"}, true},
		{"sessions with a task tool", taskTool, nil, false},
		{"stateless without task tools", plainTool, []string{"--stateless"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, tc.config)
			s := startHTTPServe(t, nil, append(tc.args, cfg)...)
			got := strings.Contains(s.Log(), "tasks are kept in this process's memory")
			if got != tc.warn {
				t.Errorf("warned: %v, want %v; log:\n%s", got, tc.warn, s.Log())
			}
		})
	}
}
