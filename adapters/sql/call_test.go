package sql

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/host"
)

// itemCount counts the rows of the items table in dir's shop.db, read
// with the driver directly.
func itemCount(t *testing.T, dir string) int {
	t.Helper()
	db, err := sqlOpen(filepath.Join(dir, "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM items").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReadOnly checks that a read-only tool cannot write, even with a
// statement that tries, and that a writing tool can, asks first and says
// it is destructive.
func TestReadOnly(t *testing.T) {
	dir := newShop(t)
	reg := loadConfig(t, dir, shopSource+rwSource+`
tool "sneaky" {
  sql {
    source = "shop"
    query  = "DELETE FROM items RETURNING id"
  }
}
tool "sneaky_rw_source" {
  sql {
    source = "rw"
    query  = "UPDATE items SET stock = 0 RETURNING id"
  }
}
tool "restock" {
  confirm_fallback = "allow"
  param "id" {
    type = number
  }
  sql {
    source    = "rw"
    query     = "UPDATE items SET stock = stock + 1 WHERE id = ?"
    args      = [param.id]
    read_only = false
  }
}
`)
	for _, name := range []string{"sneaky", "sneaky_rw_source"} {
		t.Run(name, func(t *testing.T) {
			res := callTool(t, reg, name, `{}`)
			text := resultText(res)
			if !res.IsError || !strings.Contains(text, "tool "+name) || !strings.Contains(text, "read") {
				t.Errorf("result = %v %q", res.IsError, text)
			}
		})
	}
	if n := itemCount(t, dir); n != 6 {
		t.Fatalf("items has %d rows, want 6", n)
	}
	tool, _ := reg.Tool("restock")
	if tool.Annotations == nil || tool.Annotations.DestructiveHint == nil || !*tool.Annotations.DestructiveHint || tool.Confirm == nil {
		t.Errorf("restock has no destructiveHint or confirm: %+v", tool.Annotations)
	}
	m := structured(t, callTool(t, reg, "restock", `{"id":2}`))
	if m["rows_affected"] != float64(1) {
		t.Errorf("restock = %v", m)
	}
}

// TestMaxRows checks the row cap and the byte cap: the rows kept, and a
// note that says more were left out.
func TestMaxRows(t *testing.T) {
	dir := newShop(t)
	reg := loadConfig(t, dir, shopSource+`
tool "three" {
  sql {
    source   = "shop"
    query    = "SELECT id FROM items ORDER BY id"
    max_rows = 3
  }
}
tool "six" {
  sql {
    source   = "shop"
    query    = "SELECT id FROM items ORDER BY id"
    max_rows = 6
  }
}
tool "small" {
  sql {
    source     = "shop"
    query      = "SELECT id, name FROM items ORDER BY id"
    max_output = 48
  }
}
`)
	for _, tc := range []struct {
		tool      string
		rows      int
		truncated bool
		note      string
	}{{"three", 3, true, "max_rows"}, {"six", 6, false, ""}, {"small", 1, true, "max_output"}} {
		t.Run(tc.tool, func(t *testing.T) {
			m := structured(t, callTool(t, reg, tc.tool, `{}`))
			if got := len(m["rows"].([]any)); got != tc.rows {
				t.Errorf("%d rows, want %d", got, tc.rows)
			}
			if (m["truncated"] == true) != tc.truncated || !strings.Contains(fmt.Sprint(m["note"]), tc.note) {
				t.Errorf("truncated = %v, note = %v", m["truncated"], m["note"])
			}
		})
	}
}

// TestTypes checks how SQLite's values come out: NULL, integers (a string
// past 2^53, which a JSON reader would round), exact and inexact numbers,
// text, JSON, blobs as base64, booleans.
func TestTypes(t *testing.T) {
	dir := newShop(t)
	reg := loadConfig(t, dir, shopSource+`
tool "item" {
  sql {
    source     = "shop"
    query      = "SELECT id, name, price, tags, thumb, added, active, NULL AS none_, 9007199254740993 AS big FROM items WHERE id = 1"
    single_row = true
  }
}
`)
	res := callTool(t, reg, "item", `{}`)
	text := resultText(res)
	for _, want := range []string{`"id":1`, `"name":"Blue mug"`, `"price":8.5`, `"tags":["mug","blue"]`, `"thumb":"iVBORw=="`, `"active":true`, `"none_":null`, `"big":"9007199254740993"`, `"added":"2025-03-01T10:00:00Z"`} {
		if !strings.Contains(text, want) {
			t.Errorf("row lacks %s: %s", want, text)
		}
	}
}

// TestDatabaseBack checks that a call on a database that is not there
// says so, and that the tool works once it is.
func TestDatabaseBack(t *testing.T) {
	dir := t.TempDir()
	reg := loadConfig(t, dir, shopSource+`
tool "count" {
  sql {
    source = "shop"
    query  = "SELECT count(*) AS n FROM items"
  }
}
`)
	res := callTool(t, reg, "count", `{}`)
	if text := resultText(res); !res.IsError || !strings.Contains(text, "tool count") || !strings.Contains(text, `source "shop"`) {
		t.Errorf("call without the file = %v %q", res.IsError, text)
	}
	script, err := os.ReadFile(shopScript)
	if err != nil {
		t.Fatal(err)
	}
	execScript(t, filepath.Join(dir, "shop.db"), string(script))
	m := structured(t, callTool(t, reg, "count", `{}`))
	if n := m["rows"].([]any)[0].(map[string]any)["n"]; n != float64(6) {
		t.Errorf("count = %v", n)
	}
}

// TestStatementTimeout stops a statement that runs past its source's
// statement_timeout, and says which setting stopped it.
func TestStatementTimeout(t *testing.T) {
	dir := newShop(t)
	reg := loadConfig(t, dir, `
source "shop" {
  driver            = "sqlite"
  dsn               = "shop.db"
  statement_timeout = "20ms"
}
tool "forever" {
  sql {
    source = "shop"
    query  = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
  }
}
`)
	res := callTool(t, reg, "forever", `{}`)
	if text := resultText(res); !res.IsError || !strings.Contains(text, "statement_timeout") || !strings.Contains(text, "tool forever") {
		t.Errorf("result = %v %q", res.IsError, text)
	}
}

// TestServerDown calls tools whose database server is not there (a
// loopback port nothing listens on): the error names the tool and says
// the database cannot be reached, and shows neither the dsn nor its
// password.
func TestServerDown(t *testing.T) {
	dir := t.TempDir()
	port := closedPort(t)
	t.Setenv("TEST_PG_URL", fmt.Sprintf("postgres://reader:pw-hunter2-xyz@127.0.0.1:%d/shop?connect_timeout=5", port))
	t.Setenv("TEST_MY_DSN", fmt.Sprintf("reader:pw-hunter2-xyz@tcp(127.0.0.1:%d)/shop?timeout=5s", port))
	reg := loadConfig(t, dir, `
source "pg" {
  driver = "postgres"
  dsn    = env("TEST_PG_URL")
}
source "my" {
  driver = "mysql"
  dsn    = env("TEST_MY_DSN")
}
tool "pg_count" {
  sql {
    source = "pg"
    query  = "SELECT count(*) FROM items WHERE id > $1"
    args   = [0]
  }
}
tool "my_count" {
  sql {
    source = "my"
    query  = "SELECT count(*) FROM items WHERE id > ?"
    args   = [0]
  }
}
`)
	for _, name := range []string{"pg_count", "my_count"} {
		t.Run(name, func(t *testing.T) {
			res := callTool(t, reg, name, `{}`)
			text := resultText(res)
			if !res.IsError || !strings.Contains(text, "tool "+name) || !strings.Contains(text, "cannot be reached") {
				t.Errorf("result = %v %q", res.IsError, text)
			}
			if strings.Contains(text, "hunter2") || strings.Contains(text, "reader:") {
				t.Errorf("the error shows the dsn: %q", text)
			}
		})
	}
}

// closedPort is a loopback port that nothing listens on: one a listener
// had, closed.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return port
}

// TestRelativeConfigPath loads a config named relative to the working
// directory, then changes directory: the sqlite file is still the one
// beside the config.
func TestRelativeConfigPath(t *testing.T) {
	dir := newShop(t)
	if err := os.WriteFile(filepath.Join(dir, "tools.hcl"), []byte(shopSource+`
tool "count" {
  sql {
    source = "shop"
    query  = "SELECT count(*) AS n FROM items"
  }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(dir))
	reg, diags := host.Load([]string{filepath.Join(filepath.Base(dir), "tools.hcl")}, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	defer reg.Close()
	t.Chdir(t.TempDir())
	m := structured(t, callTool(t, reg, "count", `{}`))
	if n := m["rows"].([]any)[0].(map[string]any)["n"]; n != float64(6) {
		t.Errorf("count = %v", n)
	}
}
