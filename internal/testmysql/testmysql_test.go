package testmysql

import (
	"context"
	"database/sql"
	"os"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m.Run)) }

// query returns the one text value that q selects on dsn.
func query(t *testing.T, dsn, q string) string {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
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

// TestSharedDatabases checks that tests of the shared server each get a
// database of their own, and that the server does not run as root.
func TestSharedDatabases(t *testing.T) {
	s := Shared(t)
	if s != Shared(t) {
		t.Fatal("Shared started a second server")
	}
	a, b := s.Database(t), s.Database(t)
	if got := query(t, a, "SELECT DATABASE()"); got == query(t, b, "SELECT DATABASE()") {
		t.Fatalf("two Database calls gave the same database %q", got)
	}
	if os.Geteuid() == 0 && s.User.Name == "root" {
		t.Error("mariadbd runs as root")
	}
}

// TestRestart checks that a server of the test's own keeps its address
// and its data across a clean stop and a kill, and that a session open
// across the restart fails and a new one works.
func TestRestart(t *testing.T) {
	s := Start(t)
	dsn := s.Database(t)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{"CREATE TABLE kept (v text)", "INSERT INTO kept VALUES ('here')"} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		down func()
	}{{"stop", s.Stop}, {"kill", s.Kill}} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := db.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			tc.down()
			if err := conn.PingContext(context.Background()); err == nil {
				t.Fatal("a session survived the server's stop")
			}
			s.Restart()
			if got := query(t, dsn, "SELECT v FROM kept"); got != "here" {
				t.Fatalf("after restart, kept holds %q", got)
			}
		})
	}
}
