package sql

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host"
)

// shopScript is the example database's script, which the tests build
// their database files from.
const shopScript = "../../examples/sql/shop.sql"

// newShop builds a SQLite file from the example's script in a new
// directory, and returns the directory.
func newShop(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	script, err := os.ReadFile(shopScript)
	if err != nil {
		t.Fatal(err)
	}
	execScript(t, filepath.Join(dir, "shop.db"), string(script))
	return dir
}

// execScript runs a SQL script on the SQLite file at path, creating it.
func execScript(t testing.TB, path, script string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		t.Fatalf("script: %v", err)
	}
}

// loadConfig writes src as dir/toolhost.hcl and loads it, failing the
// test on errors; the registry is closed at the test's end.
func loadConfig(t testing.TB, dir, src string) *host.Registry {
	t.Helper()
	reg, diags := loadDiags(t, dir, src)
	if diags != "" {
		t.Fatalf("load: %s", diags)
	}
	t.Cleanup(func() { _ = reg.Close() })
	return reg
}

// loadDiags writes src as dir/toolhost.hcl and loads it; it returns the
// diagnostics' text, "" without errors.
func loadDiags(t testing.TB, dir, src string) (*host.Registry, string) {
	t.Helper()
	path := filepath.Join(dir, "toolhost.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, diags := host.Load([]string{path}, nil)
	var text []string
	for _, d := range diags {
		text = append(text, d.Error())
	}
	if diags.HasErrors() {
		return reg, strings.Join(text, "\n")
	}
	return reg, ""
}

// callTool calls a tool with args (JSON) and returns its result.
func callTool(t *testing.T, reg *host.Registry, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := reg.CallTool(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// resultText is the text of a result's first content item.
func resultText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// structured decodes a result's structuredContent, failing on an error
// result.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("error result: %s", resultText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return m
}

// shopSource is the source block of the tests' configs.
const shopSource = `
source "shop" {
  driver = "sqlite"
  dsn    = "shop.db"
}
`

// rwSource is a source on the same file that its tools may write.
const rwSource = `
source "rw" {
  driver    = "sqlite"
  dsn       = "shop.db"
  read_only = false
}
`

// TestExampleShop loads examples/sql/tools.hcl beside a database built
// from its script and calls each tool.
func TestExampleShop(t *testing.T) {
	dir := newShop(t)
	src, err := os.ReadFile("../../examples/sql/tools.hcl")
	if err != nil {
		t.Fatal(err)
	}
	reg := loadConfig(t, dir, string(src))
	t.Run("list", func(t *testing.T) {
		m := structured(t, callTool(t, reg, "list_items", `{"category":"kitchen"}`))
		rows := m["rows"].([]any)
		if len(rows) != 3 || rows[0].(map[string]any)["name"] != "Tea towel" {
			t.Errorf("rows = %v", rows)
		}
	})
	t.Run("search", func(t *testing.T) {
		for _, tc := range []struct {
			text string
			want int
		}{{"mug", 2}, {"MUG", 2}, {"%", 1}, {"_", 0}, {"'", 1}, {"", 6}, {`\`, 0}} {
			m := structured(t, callTool(t, reg, "search_items", mustJSON(map[string]any{"text": tc.text})))
			if got := len(m["rows"].([]any)); got != tc.want {
				t.Errorf("search %q: %d rows, want %d: %v", tc.text, got, tc.want, m)
			}
		}
	})
	t.Run("get", func(t *testing.T) {
		m := structured(t, callTool(t, reg, "get_item", `{"id":4}`))
		if m["name"] != "Desk lamp" || m["price"] != 29.99 || m["in_stock"] != float64(5) {
			t.Errorf("get_item 4 = %v", m)
		}
		res := callTool(t, reg, "get_item", `{"id":99}`)
		if !res.IsError || !strings.Contains(resultText(res), "no row") {
			t.Errorf("get_item 99 = %v", resultText(res))
		}
	})
	t.Run("aggregate", func(t *testing.T) {
		m := structured(t, callTool(t, reg, "sales_by_category", `{}`))
		rows := m["rows"].([]any)
		if len(rows) != 2 || rows[0].(map[string]any)["category"] != "office" || rows[0].(map[string]any)["units"] != float64(11) {
			t.Errorf("rows = %v", rows)
		}
	})
}

// mustJSON is v as JSON text.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// sqlOpen opens a SQLite file with the driver, as the tests' floor.
func sqlOpen(path string) (*sql.DB, error) { return sql.Open("sqlite", path) }

// TestExampleFiles keeps the sql examples formatted as toolhost fmt
// formats, and loads the PostgreSQL one (which opens nothing at load)
// with DATABASE_URL set.
func TestExampleFiles(t *testing.T) {
	for _, name := range []string{"tools.hcl", "postgres.hcl"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "examples", "sql", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := hclwrite.Format(src); string(got) != string(src) {
			t.Errorf("examples/sql/%s is not formatted; toolhost fmt would make it:\n%s", name, got)
		}
	}
	t.Setenv("DATABASE_URL", "postgres://reader:secret@127.0.0.1:5432/shop")
	reg, diags := host.Load([]string{filepath.Join("..", "..", "examples", "sql", "postgres.hcl")}, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	_ = reg.Close()
}
