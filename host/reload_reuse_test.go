package host

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// reusedTools compares the tools of two registries: the names of the
// tools the new one took from the old one unchanged (the same compiled
// tool), and of those it compiled again.
func reusedTools(old, reg *Registry) (reused, compiled []string) {
	for _, def := range reg.Tools {
		if t, ok := old.tools[def.Name]; ok && t == reg.tools[def.Name] {
			reused = append(reused, def.Name)
		} else {
			compiled = append(compiled, def.Name)
		}
	}
	return reused, compiled
}

// TestReloadReusesUnchanged edits a config of 300 tools and checks what a
// reload compiles again: only the blocks whose text or place changed, or
// all of them when the server block, which every block may depend on,
// changed. The tools taken over keep their definitions, and the SDK is
// told of the changed ones only.
func TestReloadReusesUnchanged(t *testing.T) {
	const n = 300
	base := "server {\n  max_concurrent_calls = 8\n}\n" + testconfig.Tools(n, "v0")
	for _, tc := range []struct {
		name     string
		edit     func(string) string
		compiled []string // nil: every tool
		changed  []string
	}{
		{"one description, same length", func(s string) string {
			return strings.Replace(s, "Generated tool 7 (v0)", "Generated tool 7 (v1)", 1)
		}, []string{"tool_7"}, []string{"tool_7"}},
		{"last tool, longer", func(s string) string {
			return strings.Replace(s, "Generated tool 299 (v0)", "Generated tool 299, edited (v0)", 1)
		}, []string{"tool_299"}, []string{"tool_299"}},
		{"template of one tool", func(s string) string {
			return strings.Replace(s, `tool 150 says hello`, `tool 150 says howdy`, 1)
		}, []string{"tool_150"}, nil},
		// The blocks after a longer one start at other offsets: their
		// ranges would point wrong, so they are compiled again.
		{"one description, longer", func(s string) string {
			return strings.Replace(s, "Generated tool 150 (v0)", "Generated tool 150, edited (v0)", 1)
		}, toolRange(150, n), []string{"tool_150"}},
		{"server block", func(s string) string {
			return strings.Replace(s, "max_concurrent_calls = 8", "max_concurrent_calls = 9", 1)
		}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, path := reloadFrom(t, base, nil)
			old := r.Server.Registry()
			if err := os.WriteFile(path, []byte(tc.edit(base)), 0o644); err != nil {
				t.Fatal(err)
			}
			res := r.Reload(context.Background())
			if !res.Applied {
				t.Fatalf("not applied: %s", res.Diagnostics)
			}
			reg := r.Server.Registry()
			if len(reg.Tools) != n {
				t.Fatalf("%d tools after the reload, want %d", len(reg.Tools), n)
			}
			_, compiled := reusedTools(old, reg)
			want := tc.compiled
			if want == nil {
				for _, d := range reg.Tools {
					want = append(want, d.Name)
				}
			}
			slices.Sort(compiled)
			slices.Sort(want)
			if !slices.Equal(compiled, want) {
				t.Errorf("compiled again: %d tools %.80v, want %d %.80v", len(compiled), compiled, len(want), want)
			}
			if !slices.Equal(res.Changes.ToolsChanged, tc.changed) {
				t.Errorf("changed %v, want %v", res.Changes.ToolsChanged, tc.changed)
			}
			for i, def := range reg.Tools {
				if !slices.Contains(compiled, def.Name) && def != old.Tools[i] {
					t.Fatalf("tool %s was taken over but has a new definition", def.Name)
				}
			}
		})
	}
}

// toolRange names the generated tools from..to-1.
func toolRange(from, to int) []string {
	var names []string
	for i := from; i < to; i++ {
		names = append(names, fmt.Sprintf("tool_%d", i))
	}
	return names
}

// TestReloadBrokenKeepsReuse saves an edit with an error: the reload
// reports it, in full, and the registry in service stays; the edit fixed,
// the next reload takes the unchanged tools from it as before.
func TestReloadBrokenKeepsReuse(t *testing.T) {
	base := testconfig.Tools(50, "v0")
	var out bytes.Buffer
	r, path := reloadFrom(t, base, &out)
	before := r.Server.Registry()
	broken := strings.Replace(base, "tool 20 says hello ${param.name}", "tool 20 says hello ${param.nope}", 1)
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	res := r.Reload(context.Background())
	if res.Applied || !res.Diagnostics.HasErrors() {
		t.Fatalf("a broken edit was applied: %+v", res)
	}
	if r.Server.Registry() != before {
		t.Fatal("a broken edit took the registry in service away")
	}
	for _, w := range []string{"Error: Undeclared parameter", "in tool \"tool_20\""} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the diagnostics printed lack %q:\n%s", w, out.String())
		}
	}
	fixed := strings.Replace(base, "Generated tool 20 (v0)", "Generated tool 20 (v1)", 1)
	if err := os.WriteFile(path, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := r.Reload(context.Background()); !res.Applied || !slices.Equal(res.Changes.ToolsChanged, []string{"tool_20"}) {
		t.Fatalf("the fixed edit: %+v", res)
	}
	if _, compiled := reusedTools(before, r.Server.Registry()); !slices.Equal(compiled, []string{"tool_20"}) {
		t.Errorf("compiled again after the fix: %v, want tool_20", compiled)
	}
}

// TestReusedBackendStaysOpen: an http tool taken over by a reload keeps
// its connections when the registry before is retired: the upstream sees
// one connection for a call before the reload and one after. Had the
// retired registry closed the backend, its idle connection would be
// closed and the call after would open another.
func TestReusedBackendStaysOpen(t *testing.T) {
	url, conns := connCountingUpstream(t)
	src := pingConfig(url)
	r, path := reloadFrom(t, src("one"), nil)
	before := r.Server.Registry()
	ctx := context.Background()
	cs := connectInMemory(t, r.Server)
	if got := callText(t, cs, "ping", nil); got != "pong" {
		t.Fatalf("ping = %q", got)
	}
	if err := os.WriteFile(path, []byte(src("two")), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := r.Reload(ctx); !res.Applied || !slices.Equal(res.Changes.ToolsChanged, []string{"other"}) {
		t.Fatalf("reload: %+v", res)
	}
	if reused, _ := reusedTools(before, r.Server.Registry()); !slices.Contains(reused, "ping") {
		t.Fatalf("ping was compiled again; the test needs it taken over (reused: %v)", reused)
	}
	if got := callText(t, cs, "ping", nil); got != "pong" {
		t.Fatalf("ping after the reload = %q", got)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("the upstream saw %d connections, want 1: the retired registry closed the backend it shared", n)
	}
}

// closeCounter is a backend that counts its Close calls.
type closeCounter struct{ closed atomic.Int32 }

func (c *closeCounter) Call(context.Context, *adapters.Input) (*adapters.Output, error) {
	return nil, nil
}
func (c *closeCounter) Close() error { c.closed.Add(1); return nil }

// TestBackendRefs: a backend two configs hold is closed once, when the
// second of them is released.
func TestBackendRefs(t *testing.T) {
	shared, own := &closeCounter{}, &closeCounter{}
	a := &thcl.Config{Tools: []*thcl.Tool{{Name: "s", Backend: shared}, {Name: "o", Backend: own}}}
	b := &thcl.Config{Tools: []*thcl.Tool{{Name: "s", Backend: shared}}}
	retainBackends(a)
	retainBackends(b)
	releaseBackends(a)
	if shared.closed.Load() != 0 || own.closed.Load() != 1 {
		t.Fatalf("after the first release: shared closed %d times, own %d; want 0 and 1", shared.closed.Load(), own.closed.Load())
	}
	releaseBackends(b)
	if shared.closed.Load() != 1 {
		t.Fatalf("after the second release: shared closed %d times, want 1", shared.closed.Load())
	}
}
