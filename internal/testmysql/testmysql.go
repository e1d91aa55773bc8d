// Package testmysql runs a real MariaDB server for tests, as testpg does
// PostgreSQL: mariadb-install-db into a temporary directory (root without
// a password, no test database), mariadbd on a free loopback port with its
// socket in that directory and without durable writes, as an unprivileged
// user when the tests run as root (the mysql user of the Debian package
// when there is one, else nobody).
//
// Shared is the server that a package's tests share (one per test binary,
// stopped by TestMain through Main); Database gives each test a database
// of its own on it. Start runs a server of the test's own, which the test
// may Stop, Kill and Restart.
//
// The programs are looked up on PATH, then in /usr/sbin (Debian puts
// mariadbd there, off a user's PATH). When they are not found, a test
// that asks for a server is skipped, naming them, unless the environment
// variable CI is set: there it fails, since CI installs the mariadb-server
// package. On Windows (the tests under wine) it is always skipped.
package testmysql

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/toolhost/toolhost/internal/testserver"
)

// Superuser is the name of the server's superuser, who has no password.
const Superuser = "root"

// ready is the line mariadbd logs once it accepts connections.
const ready = "ready for connections"

// Server is one MariaDB server run for tests; only a server of the test's
// own (Start) may be stopped and restarted.
type Server struct {
	*testserver.Server
	// DSN is the go-sql-driver/mysql DSN of the server as Superuser, with
	// no database selected, for its database/sql driver "mysql".
	DSN    string
	bin    string
	daemon string
	dbs    atomic.Int64
}

// shared is the server of Shared.
var shared testserver.Shared[*Server]

// Main is testpg.Main for the MariaDB server: TestMain calls
// os.Exit(testmysql.Main(m.Run)) in a package whose tests call Shared.
func Main(run func() int) int {
	return shared.Main(run)
}

// Shared is testpg.Shared for the MariaDB server: one for the test binary,
// a Database for each test, and no Stop, Kill or Restart.
func Shared(t testing.TB) *Server {
	t.Helper()
	bin, daemon := find(t)
	return shared.Get(t, "testmysql.Main(m.Run)", func() (*Server, error) { return newServer(nil, bin, daemon) })
}

// Start is testpg.Start for the MariaDB server: a server of t's own,
// ready, closed in t.Cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, daemon := find(t)
	return testserver.Own(t, func() (*Server, error) { return newServer(t, bin, daemon) })
}

// find returns the directories of mariadb-install-db and of mariadbd, or
// skips or fails t.
func find(t testing.TB) (bin, daemon string) {
	t.Helper()
	bin = testserver.Find(t, "mariadb-server", "/usr/bin", "mariadb-install-db")
	daemon = testserver.Find(t, "mariadb-server", "/usr/sbin", "mariadbd")
	return bin, daemon
}

// newServer makes a data directory and starts mariadbd on it; t is the
// owner of a server made by Start.
func newServer(t testing.TB, bin, daemon string) (*Server, error) {
	u, err := testserver.Unprivileged("mysql")
	if err != nil {
		return nil, err
	}
	dir, err := u.Dir("testmysql-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, daemon: daemon, Server: &testserver.Server{Owner: t, Package: "testmysql", Dir: dir, User: u, Quit: syscall.SIGTERM}}
	s.Run = s.run
	install := u.Command(filepath.Join(bin, "mariadb-install-db"), append([]string{"--no-defaults",
		"--datadir=" + s.data(), "--auth-root-authentication-method=normal", "--skip-test-db"},
		s.flags()...)...)
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("testmysql: mariadb-install-db as %s in %s: %v\n%s", u.Name, dir, err, out)
	}
	if err := s.Listen(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.DSN = s.dsn("")
	return s, nil
}

// data is the server's data directory.
func (s *Server) data() string { return filepath.Join(s.Dir, "data") }

// flags are the flags of mariadbd that both the install and the server
// take: commits written at once but synced once a second (they survive a Kill, not a machine crash), no doublewrite, no binary log, a small buffer pool.
func (s *Server) flags() []string {
	return []string{
		"--skip-name-resolve",
		"--innodb-flush-log-at-trx-commit=2",
		"--innodb-doublewrite=0",
		"--innodb-buffer-pool-size=32M",
		"--skip-log-bin",
		"--tmpdir=" + s.Dir,
	}
}

// dsn is the DSN of database db (none when empty) on s as Superuser.
func (s *Server) dsn(db string) string {
	cfg := mysql.NewConfig()
	cfg.User = Superuser
	cfg.Net = "tcp"
	cfg.Addr = s.Addr
	cfg.DBName = db
	return cfg.FormatDSN()
}

// run runs mariadbd on s.Addr and waits until it is ready.
func (s *Server) run() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := s.User.Command(filepath.Join(s.daemon, "mariadbd"), append([]string{"--no-defaults",
		"--datadir=" + s.data(),
		"--socket=" + filepath.Join(s.Dir, "mariadbd.sock"),
		"--pid-file=" + filepath.Join(s.Dir, "mariadbd.pid"),
		"--port=" + port,
		"--bind-address=127.0.0.1",
		"--skip-networking=0",
		"--max-connections=200",
	}, s.flags()...)...)
	cmd.Dir = s.Dir
	if err := s.Proc.Start(cmd, ready); err != nil {
		return fmt.Errorf("testmysql: mariadbd on %s: %w", s.Addr, err)
	}
	return nil
}

// Database makes a new, empty database for t and returns its DSN (as DSN
// is, with the database selected); it is dropped in t.Cleanup.
func (s *Server) Database(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test_%d", s.dbs.Add(1))
	s.MakeDatabase(t, "mysql", s.DSN, "CREATE DATABASE `"+name+"`", "DROP DATABASE IF EXISTS `"+name+"`")
	return s.dsn(name)
}
