package testserver

import (
	"database/sql"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
)

// Server is what testpg's and testmysql's servers have in common: a
// directory, a user, a loopback address kept across restarts, and the
// process.
type Server struct {
	// Owner is the test that owns a server of its own (Start); nil for a
	// Shared one.
	Owner testing.TB
	// Package is the package that made the server, such as "testpg", for
	// messages.
	Package string
	// Dir is the server's temporary directory, owned by User.
	Dir string
	// User is who the server runs as.
	User *User
	// Addr is the server's host:port on 127.0.0.1, the same across
	// restarts.
	Addr string
	// Run starts the server program on Addr and returns once it is ready
	// (with Proc.Start).
	Run func() error
	// Quit is the signal of a clean shutdown.
	Quit os.Signal
	// Proc is the running program.
	Proc Process
}

// Listen finds a free loopback port for the server and runs it there. A
// port found free can be taken by another process before the server binds
// it; a few tries make that harmless.
func (s *Server) Listen() error {
	var err error
	for range 5 {
		port, perr := FreePort()
		if perr != nil {
			return perr
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if err = s.Run(); err == nil {
			return nil
		}
	}
	return err
}

// Close shuts the server down and removes its directory.
func (s *Server) Close() error {
	err := s.Proc.Stop(s.Quit)
	if rerr := os.RemoveAll(s.Dir); err == nil && rerr != nil {
		err = fmt.Errorf("%s: %w", s.Package, rerr)
	}
	return err
}

// owner returns the test that owns s, and panics on a shared server, which
// other tests are using.
func (s *Server) owner(method string) testing.TB {
	if s.Owner == nil {
		panic(fmt.Sprintf("%s: %s on the shared server would break the other tests that use it; a test that stops its server takes one of its own with %s.Start", s.Package, method, s.Package))
	}
	return s.Owner
}

// Stop shuts the server down cleanly (its sessions are ended) and waits
// for it to exit; its data stays for Restart. Stopping a stopped server
// does nothing. It panics on a shared server.
func (s *Server) Stop() {
	t := s.owner("Stop")
	if err := s.Proc.Stop(s.Quit); err != nil {
		t.Fatal(err)
	}
}

// Kill kills the server and its sessions at once (SIGKILL to its process
// group), as a crash would, and waits for it to exit; Restart recovers its
// data. It panics on a shared server.
func (s *Server) Kill() {
	t := s.owner("Kill")
	if err := s.Proc.Kill(); err != nil {
		t.Fatal(err)
	}
}

// Restart stops the server, when it runs, and starts it again on the same
// address with the same data. It panics on a shared server.
func (s *Server) Restart() {
	t := s.owner("Restart")
	s.Stop()
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
}

// MakeDatabase runs create, which makes a database, on the server through
// the database/sql driver named driver and its admin DSN dsn, and drop in
// t.Cleanup, unless the test stopped the server by then.
func (s *Server) MakeDatabase(t testing.TB, driver, dsn, create, drop string) {
	t.Helper()
	if err := Exec(driver, dsn, create); err != nil {
		t.Fatalf("%s: %s: %v", s.Package, create, err)
	}
	t.Cleanup(func() {
		if !s.Proc.Running() {
			return
		}
		if err := Exec(driver, dsn, drop); err != nil {
			t.Errorf("%s: %s: %v", s.Package, drop, err)
		}
	})
}

// Exec runs stmt on dsn with the database/sql driver named driver.
func Exec(driver, dsn, stmt string) error {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(stmt)
	return err
}
