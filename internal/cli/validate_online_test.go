package cli

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateOnline validates a config whose statement names a column
// the database does not have: plain validate, which does no I/O, passes
// it; validate --online prepares it on the database and says what the
// database said, at the tool.
func TestValidateOnline(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)"); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	config := func(column string) string {
		return `source "shop" {
  driver = "sqlite"
  dsn    = "shop.db"
}
tool "get_item" {
  param "id" {
    type = number
  }
  sql {
    source = "shop"
    query  = "SELECT ` + column + ` FROM items WHERE id = ?"
    args   = [param.id]
  }
}
`
	}
	for _, tc := range []struct {
		name, column string
		online       bool
		exit         int
		want         string
	}{
		{"typo offline", "nmae", false, ExitOK, "valid"},
		{"typo online", "nmae", true, ExitFailure, "no such column: nmae"},
		{"right online", "name", true, ExitOK, "valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "tools.hcl")
			if err := os.WriteFile(path, []byte(config(tc.column)), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{path}
			if tc.online {
				args = append([]string{"--online"}, args...)
			}
			var stdout, stderr bytes.Buffer
			code := runValidate(context.Background(), args, &stdout, &stderr)
			out := stdout.String() + stderr.String()
			if code != tc.exit || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want %d; output lacks %q:\n%s", code, tc.exit, tc.want, out)
			}
			if tc.exit != ExitOK && !strings.Contains(out, "get_item") {
				t.Errorf("the error does not name the tool:\n%s", out)
			}
		})
	}
}
