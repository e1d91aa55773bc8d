package host

import (
	"strings"
	"testing"

	thcl "github.com/toolhost/toolhost/hcl"
)

// TestCheckExamplesStructured checks the examples of a tool without a
// result block whose backend answers JSON of its own (sql): the expected
// result may be written as the JSON's value or as its text, and a value
// that differs is reported at its place.
func TestCheckExamplesStructured(t *testing.T) {
	const head = `
source "db" {
  driver = "sqlite"
  dsn    = "shop.db"
}
tool "items" {
  description = "Items."
  sql {
    source = "db"
    query  = "SELECT id, name FROM items"
  }
  example "recorded" {
    response = jsonencode({ rows = [{ id = 1, name = "pen" }] })
`
	cases := []struct {
		name, result string
		want         []string // summaries and texts the diagnostics hold; none: the example passes
	}{
		{"value", `result = { rows = [{ id = 1, name = "pen" }] }`, nil},
		{"text", `result = "{\"rows\":[{\"id\":1,\"name\":\"pen\"}]}"`, nil},
		{"value differs", `result = { rows = [{ id = 1, name = "ink" }] }`,
			[]string{"Example result mismatch", `rows[0].name is "pen"`, `expects "ink"`, "tools.hcl:14:"}},
		{"row missing", `result = { rows = [] }`,
			[]string{"Example result mismatch", "rows has 1 item"}},
		{"not an object", `result = true`,
			[]string{"Example result mismatch"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, _ := checkExamplesOf(t, head+"    "+c.result+"\n  }\n}\n")
			text := thcl.FormatDiagnostics(rep.Diagnostics)
			if len(c.want) == 0 {
				if rep.Failed != 0 || len(rep.Diagnostics) != 0 {
					t.Fatalf("the example failed:\n%s", text)
				}
				return
			}
			if rep.Failed != 1 {
				t.Fatalf("failed %d examples, want 1:\n%s", rep.Failed, text)
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("the diagnostics lack %q:\n%s", w, text)
				}
			}
		})
	}
}
