package hcl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReuseDecodesAgain: a tool block whose text, place and directory are
// the same is decoded again when what it decodes to depends on more than
// those, while the unchanged block beside it is taken over.
func TestReuseDecodesAgain(t *testing.T) {
	const other = "tool \"other\" {\n  description = \"v0\"\n  template { text = \"x\" }\n}\n"
	for _, tc := range []struct {
		name, tool string
		again      bool // whether t must be decoded again
	}{
		{"plain", "tool \"t\" {\n  description = \"plain\"\n  template { text = \"x\" }\n}\n", false},
		// The clock at load: a reload that applies says the time of that
		// reload, as a load from scratch would.
		{"timestamp at load", "tool \"t\" {\n  description = \"loaded at ${timestamp()}\"\n  template { text = \"x\" }\n}\n", true},
		{"now at load", "tool \"t\" {\n  description = \"loaded at ${now()}\"\n  template { text = \"x\" }\n}\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tools.hcl")
			if err := os.WriteFile(path, []byte(tc.tool+other), 0o644); err != nil {
				t.Fatal(err)
			}
			prev, diags := Load([]string{path}, nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			edited := tc.tool + strings.Replace(other, "v0", "v1", 1)
			if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			next, diags := Load([]string{path}, &Options{Previous: prev})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if next.Tools[0].Name != "t" || prev.Tools[0].Name != "t" {
				t.Fatalf("tools out of order: %s", next.Tools[0].Name)
			}
			if again := next.Tools[0] != prev.Tools[0]; again != tc.again {
				t.Errorf("tool t decoded again: %v, want %v", again, tc.again)
			}
			if next.Tools[1] == prev.Tools[1] {
				t.Errorf("tool other was taken over, but its block changed")
			}
		})
	}
}
