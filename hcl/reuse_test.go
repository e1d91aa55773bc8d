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

// httpTool is a tool block of an http tool whose URL is on host.
func httpTool(name, host string) string {
	return fmt.Sprintf("tool %q {\n  description = \"Fetches\"\n  http { url = \"https://%s/x\" }\n}\n", name, host)
}

// writeConfig writes src as tools.hcl in a new directory, and returns its path.
func writeConfig(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadDropsTrees loads configs large enough to be parsed in pieces:
// the tool blocks kept for the next load are bare in the files the config
// keeps (their syntax trees dropped), the others keep their trees, and the
// top-level blocks, their ranges and the diagnostics' context are those
// of a whole-file parse.
func TestLoadDropsTrees(t *testing.T) {
	tools := testconfig.Tools(100, "v0")
	for _, tc := range []struct {
		name string
		src  string
		full []string // the top-level blocks not bare, as type/label
	}{
		{"tools only", tools, nil},
		{"a server block and an exec tool", "server {\n  max_concurrent_calls = 8\n}\n" + tools +
			"tool \"run\" {\n  exec { command = [\"true\"] }\n}\n", []string{"server/", "tool/run"}},
		{"a server block last", tools + "server {\n  max_concurrent_calls = 8\n}\n", []string{"server/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, tc.src)
			cfg, diags := Load([]string{path}, nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			f := cfg.Files[path]
			body := f.Body.(*hclsyntax.Body)
			// A piece keeps the trees of all its blocks when one of them
			// needs it: the blocks around those of full keep theirs too.
			whole := map[string]bool{}
			for _, b := range body.Blocks {
				whole[b.Type+"/"+strings.Join(b.Labels, "")] = !isBare(b.Body)
			}
			for _, w := range tc.full {
				if !whole[w] {
					t.Errorf("%s is bare or missing, want it whole", w)
				}
			}
			// (A file parsed whole, as with one processor, is one piece.)
			if n := len(whole) - len(tc.full)*20; pieceBounds(path, []byte(tc.src)) != nil && countFalse(whole) < n {
				t.Errorf("%d of %d blocks are bare, want %d at least", countFalse(whole), len(whole), n)
			}
			parsed, d := hclsyntax.ParseConfig([]byte(tc.src), path, hcl.InitialPos)
			if d.HasErrors() {
				t.Fatal(d)
			}
			want := blockOutline(&Config{Files: map[string]*hcl.File{path: parsed}})
			if got := blockOutline(cfg); got != want {
				t.Errorf("the blocks differ from a whole-file parse:\n%s\nwant\n%s", got, want)
			}
			for _, tl := range cfg.Tools {
				if tl.Backend == nil {
					t.Fatalf("tool %s has no backend", tl.Name)
				}
			}
		})
	}
}

// TestLoadBareAgainstServer checks that the tools decoded as their piece
// is parsed, and taken bare by a reload, follow the server block even when
// it comes last: an http tool whose host the server block's allow_hosts
// leaves out is refused, at the load and at a reload that changed only
// the server block (which parses the bare pieces again), and the
// diagnostics are those of a load from scratch.
func TestLoadBareAgainstServer(t *testing.T) {
	server := func(host string) string {
		return fmt.Sprintf("server {\n  allow_hosts = [%q]\n}\n", host)
	}
	head := httpTool("fetch", "other.example.org") + testconfig.Tools(100, "v0")
	for _, tc := range []struct {
		name          string
		before, after string // "": no load before
	}{
		{"first load", "", head + server("api.example.com")},
		{"server block edited", head + server("other.example.org"), head + server("api.example.com")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, tc.after)
			_, wantDiags := Load([]string{path}, nil)
			opts := &Options{}
			if tc.before != "" {
				if err := os.WriteFile(path, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
				prev, diags := Load([]string{path}, nil)
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				opts.Previous = prev
				if err := os.WriteFile(path, []byte(tc.after), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, diags := Load([]string{path}, opts)
			if !diags.HasErrors() || diags[0].Summary != "Host not allowed" {
				t.Fatalf("diagnostics %v, want Host not allowed", diags)
			}
			if at := diags[0].Subject; at.Start.Line != 3 || at.Filename != path {
				t.Errorf("the error is at %v, want line 3 of %s", at, path)
			}
			if fmt.Sprint(diags) != fmt.Sprint(wantDiags) {
				t.Errorf("diagnostics %v, want those of a load from scratch: %v", diags, wantDiags)
			}
		})
	}
}

// TestReloadBareDiagnostics edits one tool of a config whose tools are
// bare so that it has an error: the reload reports it at its file, line
// and column, as a load from scratch does, and the fixed edit takes the
// other tools over again.
func TestReloadBareDiagnostics(t *testing.T) {
	base := testconfig.Tools(100, "v0")
	path := writeConfig(t, base)
	prev, diags := Load([]string{path}, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	broken := strings.Replace(base, "tool 60 says hello ${param.name}", "tool 60 says hello ${param.nope}", 1)
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	_, got := Load([]string{path}, &Options{Previous: prev})
	_, want := Load([]string{path}, nil)
	if !got.HasErrors() || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("reload diagnostics %v, want those of a load from scratch: %v", got, want)
	}
	line := strings.Count(broken[:strings.Index(broken, "${param.nope}")], "\n") + 1
	if at := got[0].Subject; at.Filename != path || at.Start.Line != line {
		t.Errorf("the error is at %v, want line %d of %s", at, line, path)
	}
	fixed := strings.Replace(base, "Generated tool 60 (v0)", "Generated tool 60 (v1)", 1)
	if err := os.WriteFile(path, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	next, diags := Load([]string{path}, &Options{Previous: prev})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for i, tl := range next.Tools {
		if taken := tl == prev.Tools[i]; taken == (tl.Name == "tool_60") {
			t.Errorf("tool %s taken over: %v", tl.Name, taken)
		}
	}
}

// countFalse counts the names m maps to false.
func countFalse(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if !v {
			n++
		}
	}
	return n
}

// TestReuseCarriesBlockKeys: a load keeps the key of every top-level block
// by its body, bare or not, and a load that takes a piece takes its
// blocks' keys with it; every key is the one hashing the block's text
// gives, through edits and a change of the server block (which every key
// depends on).
func TestReuseCarriesBlockKeys(t *testing.T) {
	base := testconfig.Tools(200, "v0")
	path := filepath.Join(t.TempDir(), "tools.hcl")
	edits := []string{
		base,
		strings.Replace(base, "Generated tool 50 (v0)", "Generated tool 50 (v9)", 1),
		strings.Replace(base, "Generated tool 198 (v0)", "Generated tool 198 (v0) and more", 1),
		"server {\n  name = \"renamed\"\n}\n" + base,
		"server {\n  name = \"renamed\"\n}\n" + strings.Replace(base, "Generated tool 3 (v0)", "Generated tool 3 (v1)", 1),
		// The server block changed, at the same length: the pieces after
		// it are taken, and their blocks' keys made again.
		"server {\n  name = \"remamed\"\n}\n" + strings.Replace(base, "Generated tool 3 (v0)", "Generated tool 3 (v1)", 1),
	}
	var prev *Config
	for n, src := range edits {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, diags := Load([]string{path}, &Options{Previous: prev})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		f := cfg.Files[path]
		content, _ := f.Body.Content(rootSchema)
		if len(content.Blocks) == 0 || len(cfg.reuse.keys) != len(content.Blocks) {
			t.Fatalf("edit %d: %d keys kept for %d blocks", n, len(cfg.reuse.keys), len(content.Blocks))
		}
		for _, block := range content.Blocks {
			got, ok := cfg.reuse.keys[block.Body.(*hclsyntax.Body)]
			if !ok {
				t.Fatalf("edit %d: no key kept for %s %v", n, block.Type, block.Labels)
			}
			j := decodeJob{block: block, src: f.Bytes, baseDir: filepath.Dir(path)}
			key, keep := blockKey(cfg.reuse.deps, &j)
			if got.key != key || got.keep != keep {
				t.Fatalf("edit %d: %s %v kept under another key than its text hashes to", n, block.Type, block.Labels)
			}
		}
		prev = cfg
	}
}

// TestLoadReusingEnv edits one tool of a config whose tools read an
// environment variable at load: a load that reads the process's
// environment, which does not change while it runs, takes the other tools
// from the load before; a load given its own LookupEnv, whose answers may
// change between loads, decodes every tool again.
func TestLoadReusingEnv(t *testing.T) {
	t.Setenv("TOOLHOST_REUSE_ENV", "from the environment")
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "tool \"t%d\" {\n  description = \"Tool %d: ${env(\"TOOLHOST_REUSE_ENV\")}\"\n  template { text = \"%d\" }\n}\n", i, i, i)
	}
	base := b.String()
	edited := strings.Replace(base, "Tool 7:", "Tool 9:", 1)
	own := func(name string) (string, bool) { return os.LookupEnv(name) }
	for _, tc := range []struct {
		name  string
		opts  Options
		fresh int // the tools decoded again
	}{
		{"the process's environment", Options{}, 1},
		{"a LookupEnv of its own", Options{LookupEnv: own}, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, base)
			opts := tc.opts
			prev, diags := Load([]string{path}, &opts)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			opts.Previous = prev
			got, diags := Load([]string{path}, &opts)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			before := toolsByName(prev)
			fresh := 0
			for _, tl := range got.Tools {
				if before[tl.Name] != tl {
					fresh++
				}
				if !strings.HasSuffix(tl.Description, ": from the environment") {
					t.Fatalf("tool %s: description %q", tl.Name, tl.Description)
				}
			}
			if fresh != tc.fresh {
				t.Errorf("%d tools decoded again, want %d", fresh, tc.fresh)
			}
		})
	}
}
