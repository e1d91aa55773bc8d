package sql

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/toolhost/toolhost/internal/testmysql"
	"github.com/toolhost/toolhost/internal/testpg"
)

// TestServersRestart kills a database server in the middle of a session:
// the call during the outage fails, saying the database cannot be
// reached, without the dsn or its password; the first call after the
// server is back answers.
func TestServersRestart(t *testing.T) {
	const password = "pw-hunter2-xyz"
	for _, driver := range []string{"postgres", "mysql"} {
		t.Run(driver, func(t *testing.T) {
			var dsn string
			var srv interface {
				Kill()
				Restart()
			}
			switch driver {
			case "postgres":
				s := testpg.Start(t)
				u, err := url.Parse(s.DSN)
				if err != nil {
					t.Fatal(err)
				}
				u.User = url.UserPassword(testpg.Superuser, password) // trust lets it in
				dsn, srv = u.String(), s
			case "mysql":
				s := testmysql.Start(t)
				db := testDB{driver: driver, dsn: s.DSN}
				db.exec(t, "CREATE USER app IDENTIFIED BY '"+password+"'", "GRANT SELECT ON *.* TO app")
				cfg, err := mysql.ParseDSN(s.DSN)
				if err != nil {
					t.Fatal(err)
				}
				cfg.User, cfg.Passwd = "app", password
				dsn, srv = cfg.FormatDSN(), s
			}
			db := testDB{driver: driver, dsn: dsn, dir: t.TempDir()}
			reg := loadConfig(t, db.dir, db.source("db", "")+`
tool "ping" {
  sql {
    source     = "db"
    query      = "SELECT 1 AS one"
    single_row = true
  }
}
`)
			if m := structured(t, callTool(t, reg, "ping", `{}`)); m["one"] != float64(1) {
				t.Fatalf("ping = %v", m)
			}
			srv.Kill()
			res := callTool(t, reg, "ping", `{}`)
			text := resultText(res)
			if !res.IsError || !strings.Contains(text, "tool ping") || !strings.Contains(text, "cannot be reached") {
				t.Errorf("the call during the outage = %v %q", res.IsError, text)
			}
			if strings.Contains(text, password) || strings.Contains(text, dsn) {
				t.Errorf("the error shows the dsn: %q", text)
			}
			srv.Restart()
			if m := structured(t, callTool(t, reg, "ping", `{}`)); m["one"] != float64(1) {
				t.Errorf("ping after the restart = %v", m)
			}
		})
	}
}

// TestServersReload reloads a config whose source keeps its dsn (the
// pool is kept, connections and all) and then one whose dsn changes (a
// new pool; a call running on the old one finishes there, after which
// the old pool has no connection left on the server).
func TestServersReload(t *testing.T) {
	for _, tc := range []struct {
		driver, slow, others string
	}{
		{"postgres", "SELECT pg_sleep(0.5) IS NULL AS slept, count(*) AS n FROM items",
			"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"},
		{"mysql", "SELECT SLEEP(0.5) AS slept, count(*) AS n FROM items",
			"SELECT count(*) FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID()"},
	} {
		t.Run(tc.driver, func(t *testing.T) {
			db1 := newDB(t, tc.driver, itemsTable...)
			db2 := newDB(t, tc.driver, append(itemsTable, "DELETE FROM items WHERE id = 2")...)
			config := func(db testDB) string {
				return db.source("db", `  statement_timeout = "1m"`) + fmt.Sprintf(`
tool "count" {
  sql {
    source     = "db"
    query      = "SELECT count(*) AS n FROM items"
    single_row = true
  }
}
tool "slow" {
  sql {
    source     = "db"
    query      = %q
    single_row = true
  }
}
`, tc.slow)
			}
			dir := t.TempDir()
			before := openPools()
			reg1, diags := loadDiags(t, dir, config(db1))
			if diags != "" {
				t.Fatal(diags)
			}
			structured(t, callTool(t, reg1, "count", `{}`))
			pool1 := backendOf(t, reg1, "count").pool.db
			reg2, diags := loadDiags(t, dir, config(db1))
			if diags != "" {
				t.Fatal(diags)
			}
			_ = reg1.Close()
			if backendOf(t, reg2, "count").pool.db != pool1 || openPools() != before+1 {
				t.Fatalf("an unchanged dsn got a new pool (%d pools)", openPools()-before)
			}
			if pool1.Stats().OpenConnections == 0 {
				t.Error("the kept pool lost its connections")
			}

			done := callAsync(reg2, "slow")
			testconfig.WaitFor(t, "the slow call to start", func() bool { return pool1.Stats().InUse > 0 || len(done) > 0 })
			reg3, diags := loadDiags(t, dir, config(db2))
			if diags != "" {
				t.Fatal(diags)
			}
			defer reg3.Close()
			if backendOf(t, reg3, "count").pool == backendOf(t, reg2, "count").pool {
				t.Fatal("a changed dsn kept the old pool")
			}
			_ = reg2.Close() // waits for the slow call, which finishes on the old pool
			if slow := <-done; !strings.Contains(slow, `"n":2`) {
				t.Errorf("the call running during the reload answered %q", slow)
			}
			if n := pool1.Stats().OpenConnections; n != 0 {
				t.Errorf("the old pool has %d connections open", n)
			}
			testconfig.WaitFor(t, "the old pool's connections to leave the server", func() bool { return db1.count(t, tc.others) == 0 })
			if m := structured(t, callTool(t, reg3, "count", `{}`)); m["n"] != float64(1) {
				t.Errorf("count on the new dsn = %v, want 1", m)
			}
			if got := openPools(); got != before+1 {
				t.Errorf("%d pools open, want 1", got-before)
			}
		})
	}
}

// TestServersOnline checks a statement with a misspelt column on each
// database as validate --online does: the database refuses to prepare
// it, and the diagnostic says so at the sql block; the right column
// passes.
func TestServersOnline(t *testing.T) {
	forDrivers(t, func(t *testing.T, driver string) {
		db := newDB(t, driver, itemsTable...)
		reg := loadConfig(t, db.dir, db.source("db", "")+
			idTool("typo", db.q("SELECT nmae FROM items WHERE id = {1}"), false)+
			idTool("right", db.q("SELECT name FROM items WHERE id = {1}"), false))
		diags := backendOf(t, reg, "typo").CheckOnline(context.Background())
		if len(diags) != 1 || !strings.Contains(diags[0].Detail, "nmae") || !strings.Contains(diags[0].Detail, "Tool typo") || diags[0].Subject == nil ||
			!strings.HasSuffix(diags[0].Subject.Filename, "toolhost.hcl") {
			t.Errorf("typo: %v", diags)
		}
		var checker adapters.OnlineChecker = backendOf(t, reg, "right")
		if diags := checker.CheckOnline(context.Background()); len(diags) != 0 {
			t.Errorf("right: %v", diags)
		}
	})
}

// roundTrip is a driver's table of typed columns, the statement that
// writes a row of it from a call's params, and what reading the row back
// answers.
type roundTrip struct {
	table, insert string
	args          string // the write's params, JSON
	want          string // the row read back, JSON
}

// roundTrips are the type round trips by driver: each value goes in as a
// param, bound, and comes back in structuredContent.
var roundTrips = map[string]roundTrip{
	"postgres": {
		table:  "CREATE TABLE vals (id int PRIMARY KEY, n numeric(30,4), big numeric, ts timestamptz, b bytea, j jsonb, a int[], t text)",
		insert: "INSERT INTO vals VALUES ($1, $2, $3, $4, decode($5, 'base64'), $6::jsonb, ARRAY(SELECT jsonb_array_elements_text($7::jsonb)::int), $8)",
		args:   `{"id":1,"n":12345.6789,"big":"12345678901234567890.123","ts":"2024-01-02T03:04:05.5+02:00","b":"3q2+7w==","j":{"k":[1,"x",null]},"a":[1,2,3]}`,
		want:   `{"n":12345.6789,"big":"12345678901234567890.123","ts":"2024-01-02T01:04:05.5Z","b":"3q2+7w==","j":{"k":[1,"x",null]},"a":[1,2,3],"t":null}`,
	},
	"mysql": {
		table:  "CREATE TABLE vals (id int PRIMARY KEY, n decimal(30,4), big decimal(40,3), ts timestamp(3) NULL, b blob, j json, a json, t text)",
		insert: "INSERT INTO vals VALUES (?, ?, ?, ?, FROM_BASE64(?), ?, ?, ?)",
		args:   `{"id":1,"n":12345.6789,"big":"12345678901234567890.123","ts":"2024-01-02 01:04:05.5","b":"3q2+7w==","j":{"k":[1,"x",null]},"a":[1,2,3]}`,
		// MariaDB's JSON is a LONGTEXT, which its driver reports as
		// TEXT: it comes back as the text it was.
		want: `{"n":12345.6789,"big":"12345678901234567890.123","ts":"2024-01-02T01:04:05.5Z","b":"3q2+7w==","j":"{\"k\":[1,\"x\",null]}","a":"[1,2,3]","t":null}`,
	},
	"sqlite": {
		table:  "CREATE TABLE vals (id INTEGER PRIMARY KEY, n NUMERIC, big TEXT, ts DATETIME, b BLOB, j JSON, a JSON, t TEXT)",
		insert: "INSERT INTO vals VALUES (?, ?, ?, ?, unhex(?), ?, ?, ?)",
		args:   `{"id":1,"n":12345.6789,"big":"12345678901234567890.123","ts":"2024-01-02 01:04:05.5","b":"DEADBEEF","j":{"k":[1,"x",null]},"a":[1,2,3]}`,
		want:   `{"n":12345.6789,"big":"12345678901234567890.123","ts":"2024-01-02T01:04:05.5Z","b":"3q2+7w==","j":{"k":[1,"x",null]},"a":[1,2,3],"t":null}`,
	},
}

// TestServersTypes writes values of each kind through a tool's params
// and reads them back through another's structuredContent: numerics
// (exact, and a string past what a double holds), an instant, bytes,
// JSON, an array and NULL.
func TestServersTypes(t *testing.T) {
	forDrivers(t, func(t *testing.T, driver string) {
		rt := roundTrips[driver]
		db := newDB(t, driver, rt.table)
		reg := loadConfig(t, db.dir, db.source("db", "  read_only = false")+fmt.Sprintf(`
tool "put" {
  confirm_fallback = "allow"
  param "id" {
    type = number
  }
  param "n" {
    type = number
  }
  param "big" {
    type = string
  }
  param "ts" {
    type = string
  }
  param "b" {
    type = string
  }
  param "j" {
    type = any
  }
  param "a" {
    type = list(number)
  }
  param "t" {
    type     = string
    required = false
  }
  sql {
    source    = "db"
    query     = %q
    args      = [param.id, param.n, param.big, param.ts, param.b, param.j, param.a, param.t]
    read_only = false
  }
}
`, rt.insert)+idTool("get", db.q("SELECT n, big, ts, b, j, a, t FROM vals WHERE id = {1}"), true))
		if m := structured(t, callTool(t, reg, "put", rt.args)); m["rows_affected"] != float64(1) {
			t.Fatalf("put = %v", m)
		}
		got := structured(t, callTool(t, reg, "get", `{"id":1}`))
		var want map[string]any
		if err := json.Unmarshal([]byte(rt.want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			t.Errorf("the row read back\n got %s\nwant %s", g, rt.want)
		}
	})
}

// TestExamplePostgres runs examples/sql/postgres.hcl as its comment says,
// with DATABASE_URL naming a real PostgreSQL database.
func TestExamplePostgres(t *testing.T) {
	db := newDB(t, "postgres",
		"CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, email text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
		"INSERT INTO customers (name, email, created_at) VALUES ('Ann', 'ann@example.com', '2025-01-02 03:04:05+00'), ('Bob', 'bob@example.com', '2025-02-03 04:05:06+00'), ('Annie', 'annie@example.org', '2025-03-04 05:06:07+00')")
	t.Setenv("DATABASE_URL", db.dsn)
	reg, diags := host.Load([]string{filepath.Join("..", "..", "examples", "sql", "postgres.hcl")}, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	defer reg.Close()
	for _, tc := range []struct{ prefix, want string }{
		{"ann", `[{"id":1,"name":"Ann","email":"ann@example.com","created_at":"2025-01-02T03:04:05Z"},{"id":3,"name":"Annie","email":"annie@example.org","created_at":"2025-03-04T05:06:07Z"}]`},
		{"bob@", `[{"id":2,"name":"Bob","email":"bob@example.com","created_at":"2025-02-03T04:05:06Z"}]`},
		{"' OR 1=1 --", `[]`},
	} {
		m := structured(t, callTool(t, reg, "find_customers", mustJSON(map[string]any{"prefix": tc.prefix})))
		var want any
		if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m["rows"], want) {
			got, _ := json.Marshal(m["rows"])
			t.Errorf("find_customers %q\n got %s\nwant %s", tc.prefix, got, tc.want)
		}
	}
}
