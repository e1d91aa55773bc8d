package testserver_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/testmysql"
	"github.com/toolhost/toolhost/internal/testpg"
	"github.com/toolhost/toolhost/internal/testserver"
)

func TestMain(m *testing.M) {
	os.Exit(testpg.Main(func() int { return testmysql.Main(m.Run) }))
}

// server is what testpg's and testmysql's servers do.
type server interface {
	Database(t testing.TB) string
	Stop()
	Kill()
	Restart()
}

// base is the testserver.Server of s.
func base(s server) *testserver.Server {
	switch s := s.(type) {
	case *testpg.Server:
		return s.Server
	case *testmysql.Server:
		return s.Server
	}
	panic("not a server")
}

// kinds are the servers of testpg and testmysql, and how to ask them
// which database a session is in.
var kinds = []struct {
	name, driver, currentDB string
	shared, start           func(testing.TB) server
}{
	{"postgres", "pgx", "SELECT current_database()",
		func(t testing.TB) server { return testpg.Shared(t) }, func(t testing.TB) server { return testpg.Start(t) }},
	{"mariadb", "mysql", "SELECT DATABASE()",
		func(t testing.TB) server { return testmysql.Shared(t) }, func(t testing.TB) server { return testmysql.Start(t) }},
}

// query returns the one text value that q selects on dsn.
func query(t *testing.T, driver, dsn, q string) string {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRowContext(context.Background(), q).Scan(&v); err != nil {
		t.Fatalf("%s on %s: %v", q, dsn, err)
	}
	return v
}

// TestShared checks that the tests of a shared server each get a database
// of their own, that it does not run as root, and that no test can stop
// it.
func TestShared(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := k.shared(t)
			if s != k.shared(t) {
				t.Fatal("Shared started a second server")
			}
			a, b := s.Database(t), s.Database(t)
			if got := query(t, k.driver, a, k.currentDB); got == query(t, k.driver, b, k.currentDB) {
				t.Fatalf("two Database calls gave the same database %q", got)
			}
			if os.Geteuid() == 0 {
				fi, err := os.Stat(filepath.Join(base(s).Dir, "data"))
				if err != nil {
					t.Fatal(err)
				}
				if fileOwner(fi) == 0 {
					t.Errorf("the data directory is root's: the server runs as root")
				}
			}
			defer func() {
				if recover() == nil {
					t.Fatal("Restart on the shared server did not panic")
				}
			}()
			s.Restart()
		})
	}
}

// TestRestart checks that a server of the test's own keeps its address
// and its data across a clean stop and a kill, and that a session open
// across the restart fails and a new one works.
func TestRestart(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := k.start(t)
			dsn := s.Database(t)
			db, err := sql.Open(k.driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, stmt := range []string{"CREATE TABLE kept (v text)", "INSERT INTO kept VALUES ('here')"} {
				if _, err := db.Exec(stmt); err != nil {
					t.Fatal(err)
				}
			}
			for _, down := range []struct {
				name string
				do   func()
			}{{"stop", s.Stop}, {"kill", s.Kill}} {
				t.Run(down.name, func(t *testing.T) {
					conn, err := db.Conn(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					defer conn.Close()
					down.do()
					if err := conn.PingContext(context.Background()); err == nil {
						t.Fatal("a session survived the server's stop")
					}
					s.Restart()
					if got := query(t, k.driver, dsn, "SELECT v FROM kept"); got != "here" {
						t.Fatalf("after the restart, kept holds %q", got)
					}
				})
			}
		})
	}
}
