package hcl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// TestFileFunction reads files with file(), confined to the config file's
// directory.
func TestFileFunction(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "config")
	files := map[string]string{
		"config/testdata/ok.json": `{"ok": true}`,
		"config/nested/a/b.txt":   "deep",
		"secret.txt":              "outside",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "latin1.txt"), []byte{0xe9, 0x74, 0xe9}, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("testdata", "ok.json"), filepath.Join(dir, "inside-link.json")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want, err string
	}{
		{path: "testdata/ok.json", want: `{"ok": true}`},
		{path: "./nested/a/../a/b.txt", want: "deep"},
		{path: "inside-link.json", want: `{"ok": true}`},
		{path: "../secret.txt", err: "is outside the config file's directory"},
		{path: "link.txt", err: "is outside the config file's directory"},
		{path: filepath.Join(root, "secret.txt"), err: "is an absolute path"},
		{path: "nope.json", err: "there is no file nope.json"},
		{path: "nested", err: "is a directory"},
		{path: "latin1.txt", err: "is not UTF-8 text"},
		{path: "", err: "the path is empty"},
	}
	fn := fileFunc(dir)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			v, err := fn.Call([]cty.Value{cty.StringVal(tt.path)})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %#v, %v; want an error containing %q", v, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.AsString() != tt.want {
				t.Errorf("got %q, want %q", v.AsString(), tt.want)
			}
		})
	}
}

// TestExampleEvaluate evaluates example attributes: args become JSON, the
// response a string, the result stays a value.
func TestExampleEvaluate(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"tools.hcl": `tool "t" {
  param "n" {
    type = number
  }
  template {
    text = "x"
  }
  example "e" {
    args     = { n = 2, tags = ["a"] }
    response = file("r.json")
    result   = { a = [1, { b = "c" }] }
  }
  example "err" {
    args  = "not an object"
    error = "x"
  }
}
`,
		"r.json": `{"a": 1}`,
	})
	cfg, diags := Load([]string{filepath.Join(dir, "tools.hcl")}, &Options{LookupEnv: mapEnv(nil)})
	if diags.HasErrors() {
		t.Fatal(FormatDiagnostics(diags))
	}
	exs := cfg.Tools[0].Examples
	if len(exs) != 2 {
		t.Fatalf("examples = %d, want 2", len(exs))
	}
	vals, d := exs[0].Evaluate(Functions(mapEnv(nil)))
	if d.HasErrors() {
		t.Fatal(FormatDiagnostics(d))
	}
	if string(vals.Args) != `{"n":2,"tags":["a"]}` {
		t.Errorf("args = %s", vals.Args)
	}
	if vals.Response == nil || *vals.Response != `{"a": 1}` {
		t.Errorf("response = %v", vals.Response)
	}
	if vals.Error != nil || vals.Result == cty.NilVal {
		t.Errorf("error %v, result %#v", vals.Error, vals.Result)
	}
	_, d = exs[1].Evaluate(Functions(mapEnv(nil)))
	if !hasDiag(d, "Invalid args", "an object of argument values") {
		t.Errorf("want Invalid args, got:\n%s", FormatDiagnostics(d))
	}
}

// TestExprRangeAt finds the tightest range of a nested value.
func TestExprRangeAt(t *testing.T) {
	src := `{
  topics = [
    { title = "a" },
    { title = "b", "odd key" = 1 },
  ]
  n = 1
}`
	expr, diags := hclsyntax.ParseExpression([]byte(src), "x.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tests := []struct {
		path []PathStep
		want string
	}{
		{[]PathStep{"topics", 1, "title"}, `"b"`},
		{[]PathStep{"topics", 1, "odd key"}, `1`},
		{[]PathStep{"topics", 5, "title"}, "[\n    { title = \"a\" },\n    { title = \"b\", \"odd key\" = 1 },\n  ]"},
		{[]PathStep{"n"}, "1"},
		{[]PathStep{"missing"}, src},
	}
	for _, tt := range tests {
		r := ExprRangeAt(expr, tt.path)
		if got := string(r.SliceBytes([]byte(src))); got != tt.want {
			t.Errorf("%v: got %q, want %q", tt.path, got, tt.want)
		}
	}
	if r, ok := ExprKeyRange(expr, "n"); !ok || string(r.SliceBytes([]byte(src))) != "n" {
		t.Errorf("key range of n = %v, %v", r, ok)
	}
}
