package hcl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestLoadReusing edits a config and loads it again, taking what it can
// from the load before: the top-level blocks, their ranges and the tools
// decoded are the same as a load from scratch gives, and the tools taken
// over are those whose block stayed the same at the same place.
func TestLoadReusing(t *testing.T) {
	base := testconfig.Tools(200, "v0")
	for _, tc := range []struct {
		name  string
		edit  func(string) string
		fresh []string // the tools decoded again
	}{
		{"none", func(s string) string { return s }, nil},
		{"one in place", func(s string) string {
			return strings.Replace(s, "Generated tool 50 (v0)", "Generated tool 50 (v9)", 1)
		}, []string{"tool_50"}},
		{"one longer", func(s string) string {
			return strings.Replace(s, "Generated tool 198 (v0)", "Generated tool 198 (v0) and more", 1)
		}, []string{"tool_198", "tool_199"}},
		{"a line added before the last", func(s string) string {
			return strings.Replace(s, "tool \"tool_199\"", "# a comment\ntool \"tool_199\"", 1)
		}, []string{"tool_199"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tools.hcl")
			if err := os.WriteFile(path, []byte(base), 0o644); err != nil {
				t.Fatal(err)
			}
			prev, diags := Load([]string{path}, nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if err := os.WriteFile(path, []byte(tc.edit(base)), 0o644); err != nil {
				t.Fatal(err)
			}
			got, diags := Load([]string{path}, &Options{Previous: prev})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			want, _ := Load([]string{path}, nil)
			if a, b := blockOutline(got), blockOutline(want); a != b {
				t.Fatalf("the blocks differ from a load from scratch:\n%s\nwant\n%s", a, b)
			}
			before := map[string]*Tool{}
			for _, tl := range prev.Tools {
				before[tl.Name] = tl
			}
			var fresh []string
			for i, tl := range got.Tools {
				if tl.DeclRange != want.Tools[i].DeclRange || string(tl.InputSchemaJSON) != string(want.Tools[i].InputSchemaJSON) || tl.Description != want.Tools[i].Description {
					t.Fatalf("tool %s differs from a load from scratch", tl.Name)
				}
				if before[tl.Name] != tl {
					fresh = append(fresh, tl.Name)
				}
			}
			if fmt.Sprint(fresh) != fmt.Sprint(tc.fresh) {
				t.Errorf("decoded again: %v, want %v", fresh, tc.fresh)
			}
		})
	}
}

// blockOutline lists the top-level blocks of cfg's files with their
// ranges, and the context the diagnostic writer gets at each.
func blockOutline(cfg *Config) string {
	var b strings.Builder
	for name, f := range cfg.Files {
		nav := f.Nav.(interface{ ContextString(int) string })
		for _, bl := range f.Body.(*hclsyntax.Body).Blocks {
			r := bl.Range()
			fmt.Fprintf(&b, "%s %s %v %v %s\n", name, bl.Type, bl.Labels, r, nav.ContextString(r.Start.Byte+1))
		}
	}
	return b.String()
}

// BenchmarkParseReusing parses a config of 10,000 generated tools: whole
// with HCL's parser (hclsyntax.ParseConfig), in pieces as a load does
// (parseFile), and in pieces again after one tool changed, taking the
// pieces that did not from the parse before (as a reload does).
func BenchmarkParseReusing(b *testing.B) {
	src := []byte(testconfig.Tools(10000, "v0"))
	edited := []byte(strings.Replace(string(src), "Generated tool 5000 (v0)", "Generated tool 5000 (v1)", 1))
	b.Run("ParseConfig", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			if _, diags := hclsyntax.ParseConfig(src, "tools.hcl", hcl.InitialPos); diags.HasErrors() {
				b.Fatal(diags)
			}
		}
	})
	b.Run("pieces", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			if _, diags := parseFile("tools.hcl", src); diags.HasErrors() {
				b.Fatal(diags)
			}
		}
	})
	b.Run("pieces-reused", func(b *testing.B) {
		prev := newReuse()
		parseFiles([]string{"tools.hcl"}, [][]byte{src}, nil, prev)
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			if _, diags := parseFiles([]string{"tools.hcl"}, [][]byte{edited}, prev, newReuse()); diags[0].HasErrors() {
				b.Fatal(diags)
			}
		}
	})
}
