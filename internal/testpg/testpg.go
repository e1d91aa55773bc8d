// Package testpg runs a real PostgreSQL server for tests: initdb into a
// temporary directory (trust authentication, no fsync), postgres on a free
// loopback port with its unix socket in that directory, as an unprivileged
// user when the tests run as root (postgres refuses root): the postgres
// user of the Debian package when there is one, else nobody.
//
// Shared is the server that a package's tests share (one per test binary,
// stopped by TestMain through Main); Database gives each test a database
// of its own on it. Start runs a server of the test's own, which the test
// may Stop, Kill and Restart (a database restart mid-session).
//
// The programs are looked up on PATH, then in /usr/lib/postgresql/*/bin
// (Debian's place, not on PATH). When they are not found, a test that asks
// for a server is skipped, naming them, unless the environment variable CI
// is set: there it fails, since CI installs the postgresql package. On
// Windows (the tests under wine) it is always skipped.
package testpg

import (
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for Database
	"github.com/toolhost/toolhost/internal/testserver"
)

// Superuser is the name of the server's superuser, whom trust
// authentication lets in without a password.
const Superuser = "postgres"

// ready is the line postgres logs once it accepts connections.
const ready = "database system is ready to accept connections"

// Server is one PostgreSQL server run for tests.
type Server struct {
	// t is the test that owns a server made by Start; nil for Shared.
	t    testing.TB
	bin  string
	dir  string
	user *testserver.User
	// Addr is the server's host:port on 127.0.0.1, the same across
	// restarts.
	Addr string
	// DSN is a postgres:// URL of the database "postgres" as Superuser,
	// without TLS, for pgx and its database/sql driver "pgx".
	DSN  string
	proc testserver.Process
	dbs  atomic.Int64
}

// shared is the server of Shared.
var shared testserver.Shared[*Server]

// Main runs run (a TestMain's m.Run) and then stops the shared server, if
// a test started it; a package whose tests call Shared has
//
//	func TestMain(m *testing.M) { os.Exit(testpg.Main(m.Run)) }
//
// Mains of several packages nest: testpg.Main(func() int { return
// testmysql.Main(m.Run) }).
func Main(run func() int) int {
	return shared.Main(run, func(s *Server) { _ = s.stop() })
}

// Shared returns the server that the tests of the test binary share,
// starting it the first time. Tests that need a clean database take one
// of their own with Database; they do not stop or restart it (Stop, Kill
// and Restart panic on it): a test that does uses Start.
func Shared(t testing.TB) *Server {
	t.Helper()
	bin := find(t)
	return shared.Get(t, "testpg.Main(m.Run)", func() (*Server, error) { return newServer(nil, bin) })
}

// Start runs a server of t's own and returns it once it accepts
// connections; it is stopped, and its files removed, in t.Cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := newServer(t, find(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// find returns the directory of initdb and postgres, or skips or fails t.
func find(t testing.TB) string {
	t.Helper()
	return testserver.Find(t, "postgresql", "/usr/lib/postgresql/*/bin", "initdb", "postgres")
}

// newServer makes a cluster and starts postgres on it; t is the owner of
// a server made by Start.
func newServer(t testing.TB, bin string) (*Server, error) {
	u, err := testserver.Unprivileged("postgres")
	if err != nil {
		return nil, err
	}
	dir, err := u.Dir("testpg-")
	if err != nil {
		return nil, err
	}
	s := &Server{t: t, bin: bin, dir: dir, user: u}
	initdb := u.Command(filepath.Join(bin, "initdb"), "-D", s.data(), "-U", Superuser,
		"-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("testpg: initdb as %s in %s: %v\n%s", u.Name, dir, err, out)
	}
	// A port found free can be taken by another process before the
	// server binds it; a few tries make that harmless.
	for range 5 {
		port, perr := testserver.FreePort()
		if perr != nil {
			err = perr
			break
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.DSN = s.dsn("postgres")
	return s, nil
}

// data is the cluster's directory.
func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// dsn is the URL of database db on s as Superuser.
func (s *Server) dsn(db string) string {
	u := url.URL{Scheme: "postgres", User: url.User(Superuser), Host: s.Addr, Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// start runs postgres on s.Addr and waits until it is ready.
func (s *Server) start() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := s.user.Command(filepath.Join(s.bin, "postgres"),
		"-D", s.data(),
		"-p", port,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories="+s.dir,
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "max_connections=200",
		"-c", "logging_collector=off",
		"-c", "log_destination=stderr",
	)
	cmd.Dir = s.dir
	if err := s.proc.Start(cmd, ready); err != nil {
		return fmt.Errorf("testpg: postgres on %s: %w", s.Addr, err)
	}
	return nil
}

// stop shuts the server down and removes its files.
func (s *Server) stop() error {
	err := s.proc.Stop(syscall.SIGINT)
	if rerr := os.RemoveAll(s.dir); err == nil && rerr != nil {
		err = fmt.Errorf("testpg: %w", rerr)
	}
	return err
}

// owner returns the test that owns s, and panics on the shared server,
// which other tests are using.
func (s *Server) owner(method string) testing.TB {
	if s.t == nil {
		panic("testpg: " + method + " on the shared server would break the other tests that use it; a test that stops its server takes one of its own with testpg.Start")
	}
	s.t.Helper()
	return s.t
}

// Stop shuts the server down cleanly (a fast shutdown: sessions are ended)
// and waits for it to exit; its data stays for Restart. Stopping a stopped
// server does nothing.
func (s *Server) Stop() {
	t := s.owner("Stop")
	if err := s.proc.Stop(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
}

// Kill kills the server and its sessions at once (SIGKILL), as a crash
// would, and waits for it to exit; Restart recovers its data.
func (s *Server) Kill() {
	t := s.owner("Kill")
	if err := s.proc.Kill(); err != nil {
		t.Fatal(err)
	}
}

// Restart stops the server, when it runs, and starts it again on the same
// address with the same data.
func (s *Server) Restart() {
	t := s.owner("Restart")
	t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

// Database makes a new, empty database for t and returns its DSN (a
// postgres:// URL as DSN is); it is dropped in t.Cleanup.
func (s *Server) Database(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test_%d", s.dbs.Add(1))
	s.exec(t, `CREATE DATABASE "`+name+`"`)
	t.Cleanup(func() {
		// A test that stopped its own server has no database to drop.
		if s.proc.Running() {
			s.exec(t, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
		}
	})
	return s.dsn(name)
}

// exec runs one statement in the database "postgres".
func (s *Server) exec(t testing.TB, stmt string) {
	t.Helper()
	db, err := sql.Open("pgx", s.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatalf("testpg: %s: %v", stmt, err)
	}
}
