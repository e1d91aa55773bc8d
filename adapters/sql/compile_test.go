package sql

import (
	"strings"
	"testing"
)

// TestCompileErrors loads sql blocks that are wrong and checks each
// diagnostic says what to do.
func TestCompileErrors(t *testing.T) {
	dir := newShop(t)
	tool := func(body string) string {
		return shopSource + rwSource + `
tool "t" {
  param "id" {
    type = number
  }
  sql {
` + body + `
  }
}
`
	}
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"unknown source", tool(`source = "shpo"
query = "SELECT 1"`), []string{"Unknown source", `Did you mean "shop"?`}},
		{"param in query", tool(`source = "shop"
query = "SELECT * FROM items WHERE id = ${param.id}"`), []string{"Parameter in query", "args = [param.id]", "placeholder (?)"}},
		{"too few args", tool(`source = "shop"
query = "SELECT * FROM items WHERE id = ? AND stock > ?"
args = [param.id]`), []string{"Placeholders and args differ", "2 placeholders", "1 value"}},
		{"too many args", tool(`source = "shop"
query = "SELECT * FROM items WHERE name = '?' -- ?\n/* ? */"
args = [param.id]`), []string{"0 placeholders", "1 value"}},
		{"args not a list", tool(`source = "shop"
query = "SELECT * FROM items WHERE id = ?"
args = param.id`), []string{"Invalid args", "written out"}},
		{"writes on a read-only source", tool(`source = "shop"
query = "DELETE FROM items WHERE id = ?"
args = [param.id]
read_only = false`), []string{"Source is read-only", "read_only = false to the source block"}},
		{"max_rows", tool(`source = "shop"
query = "SELECT 1"
max_rows = 0`), []string{"Invalid max_rows", "from 1 to 10000"}},
		{"open quote", tool(`source = "shop"
query = "SELECT 'x"`), []string{"Unreadable query", "never closed"}},
		{"undeclared param in args", tool(`source = "shop"
query = "SELECT ?"
args = [param.idd]`), []string{"Undeclared parameter", `Did you mean "id"?`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, diags := loadDiags(t, dir, tc.src)
			_ = reg.Close()
			for _, w := range tc.want {
				if !strings.Contains(diags, w) {
					t.Errorf("diagnostics lack %q:\n%s", w, diags)
				}
			}
		})
	}
}

// TestSourceErrors checks source blocks' diagnostics: an unknown driver,
// and a dsn that must never be shown.
func TestSourceErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TEST_SQL_DSN", "reader:hunter2secret@tcp(localhost:3306)/shop")
	_, diags := loadDiags(t, dir, `
source "a" {
  driver = "mysqll"
  dsn    = env("TEST_SQL_DSN")
  max_open_conns = 0
}
source "a" {
  driver = "sqlite"
  dsn    = "x.db"
}
tool "t" {
  sql {
    source = "a"
    query  = "SELECT 1"
  }
}
`)
	for _, w := range []string{`Did you mean "mysql"?`, "Invalid max_open_conns", "Duplicate source"} {
		if !strings.Contains(diags, w) {
			t.Errorf("diagnostics lack %q:\n%s", w, diags)
		}
	}
	if strings.Contains(diags, "hunter2secret") {
		t.Errorf("diagnostics show the dsn's password:\n%s", diags)
	}
}

// TestPlaceholders counts placeholders in each driver's syntax.
func TestPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		driver, q string
		want      int
	}{
		{"sqlite", "SELECT ? , ?", 2},
		{"sqlite", "SELECT ?2, ?1", 2},
		{"sqlite", `SELECT '?', "?", ` + "`?`" + `, ? -- ?`, 1},
		{"postgres", "SELECT $1, $2, $1", 2},
		{"postgres", "SELECT $$ $1 $$, $tag$ $2 $tag$, $1 /* $3 */", 1},
		{"postgres", "SELECT 'it''s $2', $1", 1},
		{"mysql", `SELECT 'it\'s ?', ? # ?`, 1},
		{"mysql", "SELECT ?, ?, ?", 3},
	} {
		t.Run(tc.driver+" "+tc.q, func(t *testing.T) {
			n, err := countPlaceholders(tc.q, dialects[tc.driver].lex())
			if err != nil || n != tc.want {
				t.Errorf("countPlaceholders = %d, %v; want %d", n, err, tc.want)
			}
		})
	}
}

// TestSQLResource refuses a sql block in a resource, saying where one goes.
func TestSQLResource(t *testing.T) {
	_, diags := loadDiags(t, t.TempDir(), shopSource+`
resource "items" {
  uri = "shop://items"
  sql {
    source = "shop"
    query  = "SELECT 1"
  }
}
`)
	if !strings.Contains(diags, "is a tool's backend") {
		t.Errorf("diagnostics:\n%s", diags)
	}
}
