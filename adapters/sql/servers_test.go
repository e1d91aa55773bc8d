package sql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver, for the tests' setup
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for the tests' setup

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/toolhost/toolhost/internal/testmysql"
	"github.com/toolhost/toolhost/internal/testpg"
)

func TestMain(m *testing.M) {
	os.Exit(testpg.Main(func() int { return testmysql.Main(m.Run) }))
}

// drivers are the drivers of a source block, each of which the table
// tests run on: SQLite on a file, PostgreSQL and MariaDB on the servers
// that testpg and testmysql run.
var drivers = []string{"sqlite", "postgres", "mysql"}

// testDB is a database of a test's own on one driver.
type testDB struct {
	driver string // as a source block names it
	dsn    string
	dir    string // where the test's config is written
}

// setupDriver is the database/sql driver name of a source's driver.
var setupDriver = map[string]string{"sqlite": "sqlite", "postgres": "pgx", "mysql": "mysql"}

// newDB makes an empty database for t on driver (a new server database,
// or a SQLite file in the config's directory) and runs setup on it.
func newDB(t testing.TB, driver string, setup ...string) testDB {
	t.Helper()
	db := testDB{driver: driver, dir: t.TempDir()}
	switch driver {
	case "sqlite":
		db.dsn = filepath.Join(db.dir, "test.db")
	case "postgres":
		db.dsn = testpg.Shared(t).Database(t)
	case "mysql":
		db.dsn = testmysql.Shared(t).Database(t)
	}
	db.exec(t, setup...)
	return db
}

// itemsTable is the tests' table, in SQL that the three databases share.
var itemsTable = []string{
	`CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR(200) NOT NULL, active BOOLEAN NOT NULL, tags VARCHAR(200))`,
	`INSERT INTO items VALUES (1, 'mug', true, '["a"]'), (2, 'O''Brien', false, NULL)`,
}

// open opens the database directly with its driver.
func (db testDB) open(t testing.TB) *sql.DB {
	t.Helper()
	conn, err := sql.Open(setupDriver[db.driver], db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// exec runs statements on the database, one at a time.
func (db testDB) exec(t testing.TB, stmts ...string) {
	t.Helper()
	conn := db.open(t)
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.Exec(s); err != nil {
			t.Fatalf("%s: %s: %v", db.driver, s, err)
		}
	}
}

// count is the number that a query of one count gives, read directly.
func (db testDB) count(t testing.TB, query string) int {
	t.Helper()
	conn := db.open(t)
	defer conn.Close()
	var n int
	if err := conn.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %s: %v", db.driver, query, err)
	}
	return n
}

// source is a source block named name on the database, with extra
// attributes.
func (db testDB) source(name, extra string) string {
	return fmt.Sprintf("source %q {\n  driver = %q\n  dsn    = %q\n%s\n}\n", name, db.driver, db.dsn, extra)
}

// p is the driver's placeholder number n: $n for postgres, ? otherwise.
func (db testDB) p(n int) string {
	if db.driver == "postgres" {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}

// q writes a statement with {n} for the driver's placeholder number n.
func (db testDB) q(stmt string) string {
	for n := 1; n <= 9; n++ {
		stmt = strings.ReplaceAll(stmt, fmt.Sprintf("{%d}", n), db.p(n))
	}
	return stmt
}

// idTool is a tool named name whose statement, on source "db", takes its
// one param, a number id, as its bind argument; single_row when single.
func idTool(name, query string, single bool) string {
	return fmt.Sprintf(`
tool %q {
  param "id" {
    type = number
  }
  sql {
    source     = "db"
    query      = %q
    args       = [param.id]
    single_row = %t
  }
}
`, name, query, single)
}

// callAsync calls a tool in a goroutine; the channel gets the result's
// text, or the error's.
func callAsync(reg *host.Registry, name string) <-chan string {
	done := make(chan string, 1)
	go func() {
		res, err := reg.CallTool(context.Background(), name, []byte(`{}`))
		if err != nil {
			done <- err.Error()
			return
		}
		done <- resultText(res)
	}()
	return done
}

// forDrivers runs test on each driver as a subtest.
func forDrivers(t *testing.T, test func(t *testing.T, driver string)) {
	t.Helper()
	for _, d := range drivers {
		t.Run(d, func(t *testing.T) { test(t, d) })
	}
}

// rowsOf is the rows of a call's structuredContent.
func rowsOf(t *testing.T, m map[string]any) []any {
	t.Helper()
	rows, ok := m["rows"].([]any)
	if !ok {
		t.Fatalf("no rows in %v", m)
	}
	return rows
}

// TestServersInjection passes SQL through every type of param on each
// database: each value is bound, so it matches only itself (O'Brien's
// quote among them), a value of the wrong type is refused before the
// database, and the table is untouched.
func TestServersInjection(t *testing.T) {
	forDrivers(t, func(t *testing.T, driver string) {
		db := newDB(t, driver, itemsTable...)
		reg := loadConfig(t, db.dir, db.source("db", "  read_only = false")+db.q(`
tool "by_name" {
  param "name" {
    type = string
  }
  sql {
    source = "db"
    query  = "SELECT id FROM items WHERE name = {1}"
    args   = [param.name]
  }
}
tool "by_active" {
  param "active" {
    type = bool
  }
  sql {
    source = "db"
    query  = "SELECT id FROM items WHERE active = {1}"
    args   = [param.active]
  }
}
tool "by_tags" {
  param "tags" {
    type = list(string)
  }
  param "meta" {
    type     = map(string)
    required = false
  }
  sql {
    source = "db"
    query  = "SELECT id FROM items WHERE tags = {1} OR tags = {2}"
    args   = [param.tags, param.meta]
  }
}
`)+idTool("by_id", db.q("SELECT id FROM items WHERE id = {1}"), false))
		for _, tc := range []struct {
			tool, args string
			want       int // rows; -1: the call is refused; -2: no row, or refused by the database
		}{
			{"by_name", `{"name":"mug"}`, 1},
			{"by_name", `{"name":"O'Brien"}`, 1},
			{"by_name", `{"name":"' OR '1'='1"}`, 0},
			{"by_name", `{"name":"mug' --"}`, 0},
			{"by_name", `{"name":"mug'; DROP TABLE items; --"}`, 0},
			{"by_name", `{"name":"\\' OR 1=1 #"}`, 0},
			{"by_name", `{"name":"mug\" OR \"\"=\""}`, 0},
			{"by_name", `{"name":"$1"}`, 0},
			{"by_name", `{"name":"?"}`, 0},
			{"by_name", `{"name":"%"}`, 0},
			{"by_name", `{"name":"x'); DELETE FROM items; SELECT ('"}`, 0},
			{"by_name", `{"name":"1; DELETE FROM items"}`, 0},
			{"by_name", `{"name":"\u0000' OR 1=1 --"}`, -2}, // PostgreSQL's text holds no NUL
			{"by_id", `{"id":1}`, 1},
			{"by_id", `{"id":1.5}`, -2},
			{"by_id", `{"id":-0}`, 0},
			{"by_id", `{"id":1e308}`, -2},
			{"by_id", `{"id":123456789012345678901234567890}`, -2},
			{"by_id", `{"id":"1 OR 1=1"}`, -1},
			{"by_id", `{"id":"1; DROP TABLE items"}`, -1},
			{"by_active", `{"active":true}`, 1},
			{"by_active", `{"active":false}`, 1},
			{"by_active", `{"active":"true OR 1=1"}`, -1},
			{"by_tags", `{"tags":["a"]}`, 1},
			{"by_tags", `{"tags":["') OR 1=1 --"]}`, 0},
			{"by_tags", `{"tags":[],"meta":{"x":"' OR '1'='1"}}`, 0},
			{"by_tags", `{"tags":["a\"] OR 1=1 --"],"meta":{"'":"\\"}}`, 0},
		} {
			res, err := reg.CallTool(context.Background(), tc.tool, []byte(tc.args))
			switch {
			case tc.want == -2 && (err != nil || res.IsError):
			case tc.want == -1:
				if err == nil && !res.IsError {
					t.Errorf("%s %s: accepted: %s", tc.tool, tc.args, resultText(res))
				}
			case err != nil:
				t.Errorf("%s %s: %v", tc.tool, tc.args, err)
			default:
				tc.want = max(tc.want, 0)
				if got := len(rowsOf(t, structured(t, res))); got != tc.want {
					t.Errorf("%s %s: %d rows, want %d", tc.tool, tc.args, got, tc.want)
				}
			}
		}
		if n := db.count(t, "SELECT count(*) FROM items"); n != 2 {
			t.Errorf("items has %d rows, want 2", n)
		}
	})
}

// TestServersReadOnly runs writing statements through read-only tools,
// on a read-only source and on one that may write: each is refused by
// the database, says the tool is read-only, and changes nothing; a
// writing tool on the read-write source writes; one on the read-only
// source is refused at load.
func TestServersReadOnly(t *testing.T) {
	forDrivers(t, func(t *testing.T, driver string) {
		db := newDB(t, driver, itemsTable...)
		writes := []string{
			"DELETE FROM items",
			"UPDATE items SET name = 'x'",
			"INSERT INTO items VALUES (9, 'x', true, NULL)",
			"DROP TABLE items",
			"COMMIT; DELETE FROM items",
		}
		var cfg strings.Builder
		cfg.WriteString(db.source("ro", ""))
		cfg.WriteString(db.source("rw", "  read_only = false"))
		for i, w := range writes {
			for _, src := range []string{"ro", "rw"} {
				fmt.Fprintf(&cfg, "tool \"w%d_%s\" {\n  sql {\n    source = %q\n    query  = %q\n  }\n}\n", i, src, src, w)
			}
		}
		cfg.WriteString(db.q(`
tool "rename" {
  confirm_fallback = "allow"
  param "id" {
    type = number
  }
  sql {
    source    = "rw"
    query     = "UPDATE items SET name = 'renamed' WHERE id = {1}"
    args      = [param.id]
    read_only = false
  }
}
`))
		reg := loadConfig(t, db.dir, cfg.String())
		for i, w := range writes {
			for _, src := range []string{"ro", "rw"} {
				name := fmt.Sprintf("w%d_%s", i, src)
				res := callTool(t, reg, name, `{}`)
				text := resultText(res)
				if !res.IsError {
					t.Errorf("%s (%s on source %s) was not refused: %s", name, w, src, text)
				} else if !strings.Contains(text, "tool "+name) || (!strings.Contains(w, "COMMIT") && !strings.Contains(text, "the tool is read-only")) {
					t.Errorf("%s (%s on source %s): %s", name, w, src, text)
				}
			}
		}
		if n := db.count(t, "SELECT count(*) FROM items WHERE name <> 'x'"); n != 2 {
			t.Fatalf("items has %d rows as they were, want 2", n)
		}
		if m := structured(t, callTool(t, reg, "rename", `{"id":1}`)); m["rows_affected"] != float64(1) {
			t.Errorf("rename = %v", m)
		}
		if n := db.count(t, "SELECT count(*) FROM items WHERE name = 'renamed'"); n != 1 {
			t.Errorf("the writing tool renamed %d rows, want 1", n)
		}
		_, diags := loadDiags(t, t.TempDir(), db.source("ro", "")+`
tool "wipe" {
  sql {
    source    = "ro"
    query     = "DELETE FROM items"
    read_only = false
  }
}
`)
		if !strings.Contains(diags, "Source is read-only") || !strings.Contains(diags, `source "ro" is read-only`) {
			t.Errorf("a writing tool on a read-only source: %q", diags)
		}
	})
}

// TestServersStatementTimeout runs a statement that sleeps for thirty
// seconds on a source whose statement_timeout is a fraction of one: the
// call fails naming the setting, and the server itself stops the
// statement (PostgreSQL's statement_timeout, MariaDB's
// max_statement_time), which no longer runs once the call has failed.
func TestServersStatementTimeout(t *testing.T) {
	for _, tc := range []struct {
		name, driver, sleep, running string
	}{
		{"pg_sleep", "postgres", "SELECT pg_sleep(30) AS slept",
			"SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%'"},
		{"sleep", "mysql", "SELECT SLEEP(30) AS slept",
			"SELECT count(*) FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(30)%'"},
		// BENCHMARK, unlike SLEEP, does not notice that its client left:
		// only the server's max_statement_time stops it.
		{"benchmark", "mysql", "SELECT BENCHMARK(100000000000, MD5('x')) AS busy",
			"SELECT count(*) FROM information_schema.processlist WHERE info LIKE 'SELECT BENCHMARK%'"},
	} {
		t.Run(tc.driver+"/"+tc.name, func(t *testing.T) {
			db := newDB(t, tc.driver)
			reg := loadConfig(t, db.dir, db.source("db", `  statement_timeout = "300ms"`)+fmt.Sprintf(`
tool "sleepy" {
  sql {
    source = "db"
    query  = %q
  }
}
`, tc.sleep))
			res := callTool(t, reg, "sleepy", `{}`)
			if text := resultText(res); !res.IsError || !strings.Contains(text, "statement_timeout") || !strings.Contains(text, "tool sleepy") {
				t.Errorf("result = %v %q", res.IsError, text)
			}
			// The server's own timeout fires with the call's deadline;
			// waiting for the statement to leave the server's list is
			// waiting for an event: it stays thirty seconds if nothing stops
			// it, which the test's deadline catches.
			testconfig.WaitFor(t, "the server to stop the statement", func() bool { return db.count(t, tc.running) == 0 })
		})
	}
}

// TestServersPoolExhaustion makes 64 calls at once on a source of 4
// connections, each holding its connection for a while: all answer, and
// none saw more than 4 connections on the database.
func TestServersPoolExhaustion(t *testing.T) {
	for _, tc := range []struct {
		driver, query string
	}{
		// Client connections only: an autovacuum worker, which the
		// fresh table's rows may start, is listed under the database too.
		{"postgres", "SELECT pg_sleep(0.02) IS NULL AS slept, (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend') AS conns"},
		{"mysql", "SELECT SLEEP(0.02) AS slept, (SELECT count(*) FROM information_schema.processlist WHERE db = DATABASE()) AS conns"},
		{"sqlite", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200) SELECT count(*) AS slept, 1 AS conns FROM c"},
	} {
		t.Run(tc.driver, func(t *testing.T) {
			db := newDB(t, tc.driver, itemsTable...)
			reg := loadConfig(t, db.dir, db.source("db", "  max_open_conns = 4")+fmt.Sprintf(`
tool "hold" {
  sql {
    source     = "db"
    query      = %q
    single_row = true
  }
}
`, tc.query))
			var wg sync.WaitGroup
			errs := make(chan string, 64)
			conns := make(chan float64, 64)
			for i := range 64 {
				wg.Go(func() {
					res, err := reg.CallTool(context.Background(), "hold", []byte(`{}`))
					if err != nil || res.IsError {
						errs <- fmt.Sprintf("call %d: %v %s", i, err, resultText(res))
						return
					}
					var row struct{ Conns float64 }
					b, _ := json.Marshal(res.StructuredContent)
					if err := json.Unmarshal(b, &row); err != nil {
						errs <- fmt.Sprintf("call %d: %s: %v", i, b, err)
						return
					}
					conns <- row.Conns
				})
			}
			wg.Wait()
			close(errs)
			close(conns)
			for e := range errs {
				t.Error(e)
			}
			calls := 0
			for n := range conns {
				calls++
				if n < 1 || n > 4 {
					t.Errorf("a call saw %v connections on the database, want 1 to 4", n)
				}
			}
			if calls != 64 {
				t.Errorf("%d calls answered, want 64", calls)
			}
		})
	}
}
