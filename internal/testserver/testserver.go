// Package testserver is what internal/testpg and internal/testmysql share
// to run a real database server for tests: finding its programs (with the
// skip policy of internal/testredis), a free loopback port, a temporary
// directory owned by the user the server runs as (an unprivileged one when
// the tests run as root, which both servers refuse), and a process that is
// ready once it logs a given line, and that can be stopped, killed and
// started again.
package testserver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Find returns the directory that holds every one of programs: the first
// directory of PATH that does, else the last by name of the matches of the
// glob fallback (such as "/usr/lib/postgresql/*/bin", whose last is the
// newest version while they have as many digits; may be empty).
// When none does, t is skipped, naming the programs and the Debian
// package that brings them, unless the environment variable CI is set:
// there t fails, since CI installs the package. On Windows (the tests
// under wine) t is always skipped.
func Find(t testing.TB, pkg, fallback string, programs ...string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skipf("%s runs on the Linux and macOS machines of the tests, not on Windows", programs[0])
	}
	dirs := filepath.SplitList(os.Getenv("PATH"))
	if fallback != "" {
		matches, _ := filepath.Glob(fallback)
		slices.Reverse(matches)
		dirs = append(dirs, matches...)
	}
	for _, dir := range dirs {
		if dir != "" && hasAll(dir, programs) {
			return dir
		}
	}
	msg := fmt.Sprintf("%s: not found on PATH", strings.Join(programs, ", "))
	if fallback != "" {
		msg += " nor in " + fallback
	}
	msg += fmt.Sprintf(" (install the Debian package %s)", pkg)
	if os.Getenv("CI") == "" {
		t.Skip(msg)
	}
	t.Fatal(msg + "; CI installs it, so its absence is a fault of the CI image")
	return ""
}

// hasAll reports whether dir holds an executable file of every name.
func hasAll(dir string, names []string) bool {
	for _, name := range names {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// FreePort returns a loopback TCP port that was free a moment ago. A
// server started on it may still find it taken: callers try a few.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("testserver: no free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Process is one run of a server program.
type Process struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs cmd, whose standard output and error it reads, and returns
// once a line holds ready; when cmd exits first, the error holds what it
// printed. The process is in a process group of its own, which Kill ends
// whole.
func (p *Process) Start(cmd *exec.Cmd, ready string) error {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	setGroup(cmd)
	if err := startCmd(cmd); err != nil {
		return fmt.Errorf("testserver: starting %s: %w", cmd.Path, err)
	}
	var log strings.Builder
	sc := bufio.NewScanner(out)
	up := false
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), ready) {
			up = true
			break
		}
	}
	if !up {
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		return fmt.Errorf("testserver: %s exited before it was ready (%s):\n%s", cmd.Path, cmd.ProcessState, log.String())
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		close(done)
	}()
	p.mu.Lock()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	return nil
}

// Stop sends sig to the server (a clean shutdown: each server names its
// own signal) and waits for it to exit. Stopping a stopped server does
// nothing.
func (p *Process) Stop(sig os.Signal) error {
	cmd, done := p.take()
	if cmd == nil {
		return nil
	}
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("testserver: stopping %s: %w", cmd.Path, err)
	}
	<-done
	return nil
}

// Kill kills the server's whole process group at once (SIGKILL), as a
// crash would, and waits for the server to exit. Killing a stopped server
// does nothing.
func (p *Process) Kill() error {
	cmd, done := p.take()
	if cmd == nil {
		return nil
	}
	if err := killGroup(cmd); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("testserver: killing %s: %w", cmd.Path, err)
	}
	<-done
	return nil
}

// Running reports whether the server runs: started, and not stopped or
// killed since.
func (p *Process) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil
}

// take returns the running process, if any, and forgets it.
func (p *Process) take() (*exec.Cmd, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cmd, done := p.cmd, p.done
	p.cmd, p.done = nil, nil
	return cmd, done
}
