package hcl

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestLoadTakesMoved edits a config parsed in pieces and loads it again
// with TakeMoved: the tools of the pieces the edit moved are the load
// before's, named by Moved, and BlockRange finds every block's text where
// it is now; a load after that one, without TakeMoved, gives what a load
// from scratch gives, and takes the tools that did not move.
func TestLoadTakesMoved(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // parsed in pieces
	base := testconfig.Tools(400, "v0")
	for _, tc := range []struct {
		name  string
		edit  func(string) string
		moves bool // whether pieces after the edit move
	}{
		{"one longer", func(s string) string {
			return strings.Replace(s, "Generated tool 100 (v0)", "Generated tool 100 (v0), and longer", 1)
		}, true},
		{"one shorter", func(s string) string {
			return strings.Replace(s, "Generated tool 100 (v0)", "Tool 100", 1)
		}, true},
		{"lines added", func(s string) string {
			return strings.Replace(s, "tool \"tool_100\" {", "# two lines\n# of comment\ntool \"tool_100\" {", 1)
		}, true},
		{"one in place", func(s string) string {
			return strings.Replace(s, "Generated tool 100 (v0)", "Generated tool 100 (v9)", 1)
		}, false},
		{"a server block above", func(s string) string {
			return "server {\n  name = \"moved\"\n}\n" + s
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, base)
			prev, diags := Load([]string{path}, nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if err := os.WriteFile(path, []byte(tc.edit(base)), 0o644); err != nil {
				t.Fatal(err)
			}
			want, diags := Load([]string{path}, nil)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			got, diags := Load([]string{path}, &Options{Previous: prev, TakeMoved: true})
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			if got.Moved("") != tc.moves || got.Moved("tool_399") != tc.moves {
				t.Fatalf("Moved: any %v, tool_399 %v; want %v", got.Moved(""), got.Moved("tool_399"), tc.moves)
			}
			if got.Moved("tool_0") || got.Moved("tool_100") {
				t.Fatal("a tool before the edit, or the one edited, is taken as moved")
			}
			before := toolsByName(prev)
			fresh := toolsByName(want)
			for _, tl := range got.Tools {
				switch {
				case got.Moved(tl.Name) && before[tl.Name] != tl:
					t.Fatalf("moved tool %s is not the load before's", tl.Name)
				case !got.Moved(tl.Name) && tl.DeclRange != fresh[tl.Name].DeclRange:
					t.Fatalf("tool %s at %v, want %v", tl.Name, tl.DeclRange, fresh[tl.Name].DeclRange)
				}
			}
			if a, b := blockTexts(got), blockTexts(want); a != b {
				t.Fatal("BlockRange does not find the blocks' text where it is")
			}
			// The load after parses the moved pieces where they are.
			settled, diags := Load([]string{path}, &Options{Previous: got})
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			if settled.Moved("") {
				t.Fatal("a load without TakeMoved took moved pieces")
			}
			if a, b := blockOutline(settled), blockOutline(want); a != b {
				t.Fatalf("the blocks differ from a load from scratch:\n%s\nwant\n%s", a, b)
			}
			taken := toolsByName(got)
			for _, tl := range settled.Tools {
				if tl.DeclRange != fresh[tl.Name].DeclRange {
					t.Fatalf("tool %s at %v, want %v", tl.Name, tl.DeclRange, fresh[tl.Name].DeclRange)
				}
				if !got.Moved(tl.Name) && tc.name != "a server block above" && taken[tl.Name] != tl {
					t.Fatalf("tool %s, which did not move, was decoded again", tl.Name)
				}
			}
		})
	}
}

// toolsByName maps cfg's tools by name.
func toolsByName(cfg *Config) map[string]*Tool {
	m := map[string]*Tool{}
	for _, tl := range cfg.Tools {
		m[tl.Name] = tl
	}
	return m
}

// blockTexts lists the text of every top-level block of cfg's files, as
// BlockRange finds it.
func blockTexts(cfg *Config) string {
	var b strings.Builder
	for name, f := range cfg.Files {
		for _, bl := range f.Body.(*hclsyntax.Body).Blocks {
			r := cfg.BlockRange(bl)
			fmt.Fprintf(&b, "%s %s %v %q\n", name, bl.Type, bl.Labels, f.Bytes[r.Start.Byte:r.End.Byte])
		}
	}
	return b.String()
}
