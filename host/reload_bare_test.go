package host

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestBareToolsCall calls tools of a config large enough that the load
// drops the syntax trees of its tool blocks (hcl, dropTrees): what a
// template evaluates at each call stays with the tool, before a reload
// and after one, for a tool the reload took over (its piece bare) and for
// the one it compiled again; and after a reload that changed the server
// block, which parses the bare pieces again.
func TestBareToolsCall(t *testing.T) {
	base := "server {\n  max_concurrent_calls = 8\n}\n" + testconfig.Tools(200, "v0")
	r, path := reloadFrom(t, base, nil)
	cs := connectInMemory(t, r.Server)
	args := map[string]any{"name": "ada", "count": 3}
	want := func(n string) string { return "tool " + n + " says hello ada x3" }
	if got := callText(t, cs, "tool_150", args); got != want("150") {
		t.Fatalf("tool_150 = %q, want %q", got, want("150"))
	}
	for _, tc := range []struct {
		name, old, new string
		compiled       []string // nil: every tool
	}{
		{"one tool", "tool 7 says hello", "tool 7 says howdy", []string{"tool_7"}},
		{"server block", "max_concurrent_calls = 8", "max_concurrent_calls = 9", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := r.Server.Registry()
			src := strings.Replace(base, tc.old, tc.new, 1)
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if res := r.Reload(context.Background()); !res.Applied {
				t.Fatalf("not applied: %s", res.Diagnostics)
			}
			_, compiled := reusedTools(before, r.Server.Registry())
			if tc.compiled != nil && !slices.Equal(compiled, tc.compiled) {
				t.Errorf("compiled again: %v, want %v", compiled, tc.compiled)
			}
			if tc.compiled == nil && len(compiled) != 200 {
				t.Errorf("compiled again: %d tools, want all 200", len(compiled))
			}
			if got := callText(t, cs, "tool_150", args); got != want("150") {
				t.Errorf("tool_150 = %q, want %q", got, want("150"))
			}
			if got, w := callText(t, cs, "tool_7", args), "tool 7 says howdy ada x3"; got != w {
				t.Errorf("tool_7 = %q, want %q", got, w)
			}
			base = src
		})
	}
}
