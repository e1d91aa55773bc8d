// Package interop holds the interoperability test of toolhost with the
// official TypeScript MCP SDK client (client.test.mjs, run by node).
package interop

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// nodeTimeout bounds the whole node test run.
const nodeTimeout = 2 * time.Minute

const npmHint = "run `npm ci` in interop/ (needs Node.js 18 or newer) to install the TypeScript MCP SDK"

// TestTypeScriptClient builds toolhost and runs client.test.mjs,
// reload.test.mjs, rich.test.mjs, http.test.mjs and broken.test.mjs
// against it with node's test runner.
func TestTypeScriptClient(t *testing.T) {
	node := findNode(t)

	bin := filepath.Join(t.TempDir(), "toolhost")
	build := exec.Command("go", "build", "-o", bin, "../cmd/toolhost")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ../cmd/toolhost: %v\n%s", err, out)
	}

	runNode(t, node, nodeTimeout, []string{"TOOLHOST_BIN=" + bin}, "client.test.mjs", "reload.test.mjs", "rich.test.mjs", "http.test.mjs", "broken.test.mjs")
}

// runNode runs node's test runner on files, with env added to this
// process's environment, and fails t if a test fails or the run takes
// longer than timeout. The output goes to the test log line by line.
func runNode(t *testing.T, node string, timeout time.Duration, env []string, files ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"--test", "--test-reporter=spec"}, files...)...)
	cmd.Env = append(append(os.Environ(), env...), "NO_COLOR=1", "FORCE_COLOR=0")
	cmd.Stdin = nil
	// Kill the whole run at the deadline, and don't wait forever for pipes
	// held open by a grandchild (the toolhost server) after that.
	cmd.WaitDelay = 10 * time.Second

	lw := &lineLogger{t: t}
	cmd.Stdout = lw
	cmd.Stderr = lw
	err := cmd.Run()
	lw.flush()
	if ctx.Err() != nil {
		t.Fatalf("node --test did not finish within %s", timeout)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("node --test failed (exit status %d); its output is above", ee.ExitCode())
		}
		t.Fatalf("node --test: %v", err)
	}
}

// findNode returns the path of node, once the SDK is installed; without
// them the test fails on CI and skips elsewhere (missing).
func findNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not installed: install Node.js 18 or newer, then "+npmHint)
	}
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing(t, "node_modules/@modelcontextprotocol/sdk is missing: "+npmHint)
	}
	return node
}

// missing fails the test on CI and skips it elsewhere. Under wine it
// skips: a Windows test binary there cannot run the node of Linux
// (TestWindowsUnderWine drives toolhost.exe from Linux instead).
func missing(t *testing.T, msg string) {
	t.Helper()
	if testconfig.UnderWine() {
		t.Skip("under wine, the Windows test binary cannot run Linux's node; TestWindowsUnderWine, on Linux, drives toolhost.exe: " + msg)
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// lineLogger writes whole lines of output to the test log as they arrive.
type lineLogger struct {
	t   *testing.T
	mu  sync.Mutex
	buf bytes.Buffer
}

var _ io.Writer = (*lineLogger)(nil)

func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			// Incomplete line: keep it for the next write.
			l.buf.Reset()
			l.buf.WriteString(line)
			return len(p), nil
		}
		l.t.Log(strings.TrimRight(line, "\r\n"))
	}
}

func (l *lineLogger) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rest := l.buf.String(); rest != "" {
		l.t.Log(rest)
		l.buf.Reset()
	}
}
