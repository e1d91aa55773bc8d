//go:build unix

package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// stubbornConfig is a tool whose command, and the child it starts, ignore
// SIGTERM, with a kill_timeout far longer than a shutdown waits; it writes
// both pids to the file its param names.
const stubbornConfig = `
tool "stubborn" {
  param "pids" { type = string }
  exec {
    command      = ["sh", "-c", "trap '' TERM; sleep 60 & echo $$ $! > \"$1\"; while :; do sleep 0.05; done", "stubborn", param.pids]
    timeout      = "5m"
    kill_timeout = "20s"
  }
}
`

// readPids waits until path holds two pids, and returns them.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	return testconfig.Pids(t, path, 2, 15*time.Second)
}

// killStubborn checks that the commands are still running, within their
// kill_timeout, then kills them (KillCommands) and waits until they are
// gone.
func killStubborn(t *testing.T, pids []int) {
	t.Helper()
	wait, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if adapters.WaitCommands(wait) {
		t.Error("no command runs any more: the call waited for its command")
	}
	adapters.KillCommands()
	for _, pid := range pids {
		testconfig.WaitFor(t, fmt.Sprintf("process %d is gone", pid), func() bool {
			if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
				return true
			}
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			i := strings.LastIndexByte(string(b), ')')
			return err != nil || (i >= 0 && strings.HasPrefix(string(b[i+1:]), " Z"))
		})
	}
}

// TestShutdownAnswersBeforeCommandsEnd: a call stopped because the host
// is exiting is answered at once, on stdio (ShutdownBecause) and over HTTP
// (a shutdown past its ShutdownTimeout, on a POST's stream and on an SSE
// stream), while its command, which ignores its kill_signal, still has its
// kill_timeout: the host does not wait for the command before the answer
// goes out, so a kill_timeout longer than the host's wait loses no answer.
// Not parallel: it kills every command of the process.
func TestShutdownAnswersBeforeCommandsEnd(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pids")
		p := startStdio(t, loadSource(t, stubbornConfig))
		p.initialize()
		var pids []int
		stopStdioDuringCall(t, p, "stubborn", map[string]any{"pids": pidFile}, func() { pids = readPids(t, pidFile) })
		killStubborn(t, pids)
	})
	for _, sse := range []bool{false, true} {
		name := "http"
		if sse {
			name = "sse"
		}
		t.Run(name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pids")
			var pids []int
			stopHTTPDuringCall(t, stubbornConfig, sse, "stubborn", map[string]any{"pids": pidFile}, func() { pids = readPids(t, pidFile) })
			killStubborn(t, pids)
		})
	}
}

// TestShutdownAnswersResourceReads: a read of a resource served by an exec
// backend (a resource template's, a fixed resource's), stopped because
// the host is exiting, is answered at once with the reason, as a call is,
// not with "context canceled", while its command, which ignores its
// kill_signal, still has its kill_timeout. Not parallel: it kills every
// command of the process.
func TestShutdownAnswersResourceReads(t *testing.T) {
	const script = `trap '' TERM; sleep 60 & echo $$ $! > "$1"; while :; do sleep 0.05; done`
	for _, tc := range []struct{ name, uri, config string }{
		{"resource template", "rx:///a", `
resource_template "rx" {
  uri_template = "rx:///{v}"
  exec {
    command      = ["sh", "-c", %q, "rx", "%s/${param.v}"]
    timeout      = "5m"
    kill_timeout = "20s"
  }
}
`},
		{"resource", "status://now", `
resource "status" {
  uri = "status://now"
  exec {
    command      = ["sh", "-c", %q, "status", "%s/a"]
    timeout      = "5m"
    kill_timeout = "20s"
  }
}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := startStdio(t, loadSource(t, fmt.Sprintf(tc.config, script, dir)))
			p.initialize()
			p.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + tc.uri + `"}}`)
			pids := readPids(t, filepath.Join(dir, "a"))
			reason := errors.New("the test stops the host")
			start := time.Now()
			p.srv.ShutdownBecause(reason)
			r := p.next()
			want := "reading " + tc.uri + ": the read was cancelled: " + reason.Error()
			if string(r.ID) != "1" || r.Error == nil || r.Error.Message != want {
				t.Errorf("the answer: %s; want an error %q", r.line, want)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("the answer came %s after the shutdown: it waited for the command", took)
			}
			killStubborn(t, pids)
		})
	}
}
