// Package interop holds the interoperability tests of toolhost with the
// official TypeScript MCP SDK client (client.test.mjs, run by node) and
// with mcp-go, a second, independent client library (mcpgo_test.go).
package interop

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// nodeTimeout bounds the whole node test run.
const nodeTimeout = 2 * time.Minute

// TestTypeScriptClient builds toolhost and runs client.test.mjs,
// reload.test.mjs, rich.test.mjs, http.test.mjs, broken.test.mjs and
// openapi.test.mjs
// against it with node's test runner.
func TestTypeScriptClient(t *testing.T) {
	node := findNode(t)
	bin := buildToolhost(t)
	runNode(t, node, nodeTimeout, []string{"TOOLHOST_BIN=" + bin}, "client.test.mjs", "reload.test.mjs", "rich.test.mjs", "http.test.mjs", "broken.test.mjs", "openapi.test.mjs")
}

// TestMain runs the test binary as a program when an exec tool of a test
// starts it (testconfig.ProgramList), and the tests otherwise.
func TestMain(m *testing.M) { testconfig.Main(m) }

// buildToolhost builds cmd/toolhost into the test's temporary directory
// and returns the binary's path. Under wine, where there is no go command
// to build with, it skips t.
func buildToolhost(t *testing.T) string {
	t.Helper()
	if testconfig.UnderWine() {
		t.Skip("under wine there is no go command to build toolhost with; TestWindowsUnderWine, on Linux, drives toolhost.exe")
	}
	bin := filepath.Join(t.TempDir(), "toolhost")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, "../cmd/toolhost")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ../cmd/toolhost: %v\n%s", err, out)
	}
	return bin
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
