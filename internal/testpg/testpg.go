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
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
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

// Server is one PostgreSQL server run for tests. Its Stop, Kill and
// Restart are for a server of the test's own (Start).
type Server struct {
	*testserver.Server
	// DSN is a postgres:// URL of the database "postgres" as Superuser,
	// without TLS, for pgx and its database/sql driver "pgx".
	DSN string
	bin string
	dbs atomic.Int64
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
	return shared.Main(run)
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
	bin := find(t)
	return testserver.Own(t, func() (*Server, error) { return newServer(t, bin) })
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
	s := &Server{bin: bin, Server: &testserver.Server{Owner: t, Package: "testpg", Dir: dir, User: u, Quit: syscall.SIGINT}}
	s.Run = s.run
	initdb := u.Command(filepath.Join(bin, "initdb"), "-D", s.data(), "-U", Superuser,
		"-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("testpg: initdb as %s in %s: %v\n%s", u.Name, dir, err, out)
	}
	if err := s.Listen(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.DSN = s.dsn("postgres")
	return s, nil
}

// data is the cluster's directory.
func (s *Server) data() string { return filepath.Join(s.Dir, "data") }

// dsn is the URL of database db on s as Superuser.
func (s *Server) dsn(db string) string {
	u := url.URL{Scheme: "postgres", User: url.User(Superuser), Host: s.Addr, Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// run runs postgres on s.Addr and waits until it is ready.
func (s *Server) run() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := s.User.Command(filepath.Join(s.bin, "postgres"),
		"-D", s.data(),
		"-p", port,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories="+s.Dir,
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "max_connections=200",
		"-c", "logging_collector=off",
		"-c", "log_destination=stderr",
	)
	cmd.Dir = s.Dir
	if err := s.Proc.Start(cmd, ready); err != nil {
		return fmt.Errorf("testpg: postgres on %s: %w", s.Addr, err)
	}
	return nil
}

// Database makes a new, empty database for t and returns its DSN (a
// postgres:// URL as DSN is); it is dropped in t.Cleanup.
func (s *Server) Database(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test_%d", s.dbs.Add(1))
	s.MakeDatabase(t, "pgx", s.DSN, `CREATE DATABASE "`+name+`"`, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
	return s.dsn(name)
}
