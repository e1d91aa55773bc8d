package sql

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingSQLiteFile: a source whose file does not exist is reported as
// such, by validate --online and by a call, for read-only and read-write
// pools alike, and the file is not created.
func TestMissingSQLiteFile(t *testing.T) {
	for _, readOnly := range []bool{true, false} {
		name := map[bool]string{true: "read-only", false: "read-write"}[readOnly]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := `
source "shop" {
  driver    = "sqlite"
  dsn       = "nosuch.db"
  read_only = ` + map[bool]string{true: "true", false: "false"}[readOnly] + `
}
tool "count" {
  ` + map[bool]string{true: "", false: `confirm_fallback = "allow"`}[readOnly] + `
  sql {
    source    = "shop"
    query     = "SELECT 1 AS n"
    read_only = ` + map[bool]string{true: "true", false: "false"}[readOnly] + `
  }
}
`
			reg := loadConfig(t, dir, src)
			diags := backendOf(t, reg, "count").CheckOnline(context.Background())
			if len(diags) != 1 || diags[0].Summary != "Database cannot be reached" ||
				!strings.Contains(diags[0].Detail, "names an existing database file") || strings.Contains(diags[0].Detail, "Fix the query") ||
				diags[0].Subject == nil || diags[0].Subject.Start.Line != 4 {
				t.Errorf("validate --online: %v", diags)
			}
			res := callTool(t, reg, "count", `{}`)
			if text := resultText(res); !res.IsError || !strings.Contains(text, "cannot be reached") || !strings.Contains(text, "names an existing database file") {
				t.Errorf("the call answered %q", text)
			}
			if entries, _ := filepath.Glob(filepath.Join(dir, "nosuch.db*")); len(entries) != 0 {
				t.Errorf("the missing file was made: %v", entries)
			}
		})
	}
}
