package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/bridge/bridgetest"
)

// bridgeProc is a running "toolhost bridge framed".
type bridgeProc struct {
	cmd    *exec.Cmd
	stdout *bytes.Buffer
	stderr *bytes.Buffer
	done   chan error
}

func startBridge(t *testing.T, args ...string) *bridgeProc {
	t.Helper()
	p := &bridgeProc{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(binPath, append([]string{"bridge", "framed"}, args...)...)
	ownGroup(p.cmd)
	mu := new(sync.Mutex)
	p.cmd.Stdout = &lockedWriter{w: p.stdout, mu: mu}
	p.cmd.Stderr = &lockedWriter{w: p.stderr, mu: mu}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		p.done <- nil
		if t.Failed() {
			mu.Lock()
			t.Logf("bridge stderr:\n%s", p.stderr.String())
			mu.Unlock()
		}
	})
	return p
}

// waitExit waits for the bridge, sent SIGTERM, to exit 0.
func (p *bridgeProc) waitExit(t *testing.T) {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		if err != nil {
			t.Fatalf("bridge exited with %v after SIGTERM", err)
		}
	case <-time.After(bridgetest.Timeout):
		t.Fatal("bridge did not exit after SIGTERM")
	}
}

// stop sends SIGTERM and waits for a clean exit with nothing on stdout.
func (p *bridgeProc) stop(t *testing.T) {
	t.Helper()
	sendStop(t, p.cmd)
	p.waitExit(t)
	if p.stdout.Len() > 0 {
		t.Fatalf("bridge wrote to stdout: %q", p.stdout.String())
	}
}

// TestBridgeSeedSession runs the examples config against the seed
// document's session: the services of the document are registered with
// what the document says of them, the document's call is answered, and
// SIGTERM stops the bridge cleanly.
func TestBridgeSeedSession(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "bridge", "testdata", "seed-session.txt"))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := bridgetest.ParseSession(string(src))
	if err != nil {
		t.Fatal(err)
	}
	ts := bridgetest.NewServer(t)
	p := startBridge(t, "--connect", ts.Addr, "--watch=false", filepath.Join("..", "..", "examples", "tools.hcl"))
	conn := ts.Accept()

	reg := conn.NextRegister()
	for name, want := range map[string]string{
		"get_current_time": `{"type":"object","properties":{"format":{"type":"string","enum":["simple","detailed"]}}}`,
		"create_file":      `{"type":"object","properties":{"filename":{"type":"string"},"content":{"type":"string"}},"required":["filename","content"]}`,
	} {
		svc, ok := reg.Services[name]
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		var w, g any
		_ = json.Unmarshal([]byte(want), &w)
		_ = json.Unmarshal(svc.Parameters, &g)
		if p := subsetOf(w, g, name); p != "" {
			t.Errorf("parameters of %s: %s\n%s", name, p, svc.Parameters)
		}
		if svc.Description == "" {
			t.Errorf("%s has no description", name)
		}
	}

	conn.Send(steps[3].Frame) // the document's call of get_current_time
	f, m := conn.NextMessage()
	if f.TaskID != "mcp00001" || f.Seq != "0000" || !f.Bracketed {
		t.Fatalf("result frame %s[%s]", f.TaskID, f.Seq)
	}
	var r bridgetest.Result
	if err := json.Unmarshal(m.Data, &r); err != nil || m.Type != "result" || r.CallID != "call_001" || !r.Result.Success {
		t.Fatalf("result %s %s", m.Type, m.Data)
	}
	if s := r.Text(t); !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`).MatchString(s) {
		t.Fatalf("time %q is not in the document's format", s)
	}
	p.stop(t)
	conn.WaitClosed()
}

// subsetOf returns where want has something got has not, or "".
func subsetOf(want, got any, path string) string {
	if w, ok := want.(map[string]any); ok {
		g, ok := got.(map[string]any)
		if !ok {
			return path + " is not an object"
		}
		for k, v := range w {
			if p := subsetOf(v, g[k], path+"."+k); p != "" {
				return p
			}
		}
		return ""
	}
	if !reflect.DeepEqual(want, got) {
		return path + " differs"
	}
	return ""
}

// TestBridgeReload edits the config while connected: the new service list
// is registered on the same connection.
func TestBridgeReload(t *testing.T) {
	cfg := writeConfig(t, toolConfig("alpha"))
	ts := bridgetest.NewServer(t)
	p := startBridge(t, "--connect", ts.Addr, cfg)
	conn := ts.Accept()
	if got := serviceNames(conn.NextRegister()); got != "alpha" {
		t.Fatalf("registered %s", got)
	}
	writeAtomically(t, cfg, toolConfig("alpha", "gamma"))
	if got := serviceNames(conn.NextRegister()); got != "alpha,gamma" {
		t.Fatalf("re-registered %s", got)
	}
	conn.Call("g", "gamma", nil)
	if r := conn.NextResult(); r.Text(t) != "I am gamma" {
		t.Fatalf("gamma: %+v", r)
	}
	p.stop(t)
}

func serviceNames(s bridgetest.Services) string {
	var names []string
	for n := range s.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// TestBridgeReconnect drops the connection: the bridge reconnects and
// registers again.
func TestBridgeReconnect(t *testing.T) {
	cfg := writeConfig(t, toolConfig("alpha"))
	ts := bridgetest.NewServer(t)
	p := startBridge(t, "--connect", ts.Addr, "--watch=false", cfg)
	conn := ts.Accept()
	conn.NextRegister()
	conn.Close()
	conn = ts.Accept()
	if got := serviceNames(conn.NextRegister()); got != "alpha" {
		t.Fatalf("registered %s after reconnecting", got)
	}
	conn.Call("a", "alpha", nil)
	if r := conn.NextResult(); r.Text(t) != "I am alpha" {
		t.Fatalf("alpha: %+v", r)
	}
	p.stop(t)
}

func TestBridgeUsage(t *testing.T) {
	good := writeConfig(t, toolConfig("alpha"))
	bad := writeConfig(t, "tool \"x\" {\n  template { text = param.nope }\n}\n")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no protocol", []string{"bridge"}, 2, "Usage: toolhost bridge framed"},
		{"unknown protocol", []string{"bridge", "mqtt"}, 2, `unknown protocol "mqtt"`},
		{"no address", []string{"bridge", "framed", good}, 2, "give the server's address"},
		{"no config", []string{"bridge", "framed", "--connect", "127.0.0.1:1"}, 2, "give the config"},
		{"bad task id", []string{"bridge", "framed", "--connect", "127.0.0.1:1", "--task-id", "abc", good}, 2, "exactly 8"},
		{"tiny max frame", []string{"bridge", "framed", "--connect", "127.0.0.1:1", "--max-frame", "10", good}, 2, "--max-frame must be at least"},
		{"invalid config", []string{"bridge", "framed", "--connect", "127.0.0.1:1", bad}, 1, "Undeclared parameter"},
		// An address that no retry can ever dial is a usage error, not a
		// server that is down.
		{"address without port", []string{"bridge", "framed", "--connect", "localhost", good}, 2, "--connect"},
		{"port out of range", []string{"bridge", "framed", "--connect", "127.0.0.1:99999", good}, 2, "--connect"},
		{"empty port", []string{"bridge", "framed", "--connect", "127.0.0.1:", good}, 2, "--connect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A usage error exits at once; a bridge left retrying is
			// killed, and fails the test, instead of hanging it.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binPath, tc.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
			if stdout.Len() > 0 {
				t.Fatalf("stdout %q", stdout.String())
			}
		})
	}
}
