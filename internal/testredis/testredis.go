// Package testredis runs a real redis-server for tests: on a free loopback
// port, in a temporary directory, without persistence, stopped when the
// test ends. Tests of failures can kill it and start it again on the same
// port.
//
// When redis-server is not on PATH, a test that calls Start is skipped,
// naming the program, unless the environment variable CI is set: there it
// fails, since CI installs the redis-server package. On Windows (the tests
// under wine) it is always skipped.
package testredis

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"

	"github.com/toolhost/toolhost/internal/testserver"
)

// Program is the name of the server run, looked up on PATH.
const Program = "redis-server"

// ready is the line redis-server logs once it accepts connections.
const ready = "Ready to accept connections"

// Server is one redis-server run for a test.
type Server struct {
	t    testing.TB
	path string
	dir  string
	// Addr is the server's host:port on 127.0.0.1, the same across
	// restarts.
	Addr string
	// URL is Addr as a redis:// URL (rediss:// for StartTLS).
	URL string
	// CAFile is the PEM file of the certificate authority that signed the
	// certificate of a StartTLS server; empty for Start.
	CAFile string
	// tls are the TLS flags of a StartTLS server.
	tls []string

	proc testserver.Process
}

// Start runs a redis-server for t on a free loopback port and returns it
// once it answers; it is stopped in t.Cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t, false)
}

// start is Start, serving TLS only when tls is set.
func start(t testing.TB, tls bool) *Server {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("redis-server runs on the Linux and macOS machines of the tests, not on Windows")
	}
	path, err := exec.LookPath(Program)
	if err != nil {
		msg := fmt.Sprintf("%s is not on PATH (install the Debian package redis-server): %v", Program, err)
		if os.Getenv("CI") == "" {
			t.Skip(msg)
		}
		t.Fatal(msg + "; CI installs it, so its absence is a fault of the CI image")
	}
	s := &Server{t: t, path: path, dir: t.TempDir()}
	scheme := "redis://"
	if tls {
		scheme = "rediss://"
		s.tls = s.certificates()
	}
	var lastErr error
	// A port found free can be taken by another process before the
	// server binds it; a few tries make that harmless.
	for range 5 {
		port, err := testserver.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if lastErr = s.start(); lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		t.Fatal(lastErr)
	}
	s.URL = scheme + s.Addr
	t.Cleanup(s.Kill)
	return s
}

// start runs redis-server on s.Addr and waits for its ready line, or for it
// to exit, in which case the error holds what it logged.
func (s *Server) start() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	portFlags := []string{"--port", port}
	if s.tls != nil {
		portFlags = append([]string{"--port", "0", "--tls-port", port}, s.tls...)
	}
	cmd := exec.Command(s.path, append(portFlags,
		"--bind", "127.0.0.1",
		"--protected-mode", "yes",
		"--dir", s.dir,
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--loglevel", "notice",
		"--logfile", "",
	)...)
	cmd.Dir = s.dir
	if err := s.proc.Start(cmd, ready); err != nil {
		return fmt.Errorf("testredis: redis-server on %s: %w", s.Addr, err)
	}
	return nil
}

// Kill stops the server at once (SIGKILL) and waits for it to exit; its
// data is lost. Killing a stopped server does nothing.
func (s *Server) Kill() {
	if err := s.proc.Kill(); err != nil {
		s.t.Error(err)
	}
}

// Restart kills the server, when it runs, and starts a new, empty one on
// the same address.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	if err := s.start(); err != nil {
		s.t.Fatal(err)
	}
}
