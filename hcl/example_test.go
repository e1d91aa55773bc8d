package hcl

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/internal/testconfig"
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
	type fileCase struct {
		path, want, err string
		link            bool // path is a symbolic link
	}
	tests := []fileCase{
		{path: "testdata/ok.json", want: `{"ok": true}`},
		{path: "./nested/a/../a/b.txt", want: "deep"},
		{path: "inside-link.json", want: `{"ok": true}`, link: true},
		{path: "../secret.txt", err: "is outside the config file's directory"},
		{path: "link.txt", err: "is outside the config file's directory", link: true},
		{path: filepath.Join(root, "secret.txt"), err: "is an absolute path"},
		{path: "nope.json", err: "there is no file nope.json"},
		{path: "nested", err: "is a directory"},
		{path: "latin1.txt", err: "is not UTF-8 text"},
		{path: "", err: "the path is empty"},
	}
	// On Windows, a backslash separates too; a path rooted without a drive
	// (\x, /etc/hostname) is an absolute path, and one relative to a
	// drive's own directory (C:x) does not leave the config file's
	// directory.
	if runtime.GOOS == "windows" {
		tests = append(tests, []fileCase{
			{path: `testdata\ok.json`, want: `{"ok": true}`},
			{path: `..\secret.txt`, err: "is outside the config file's directory"},
			{path: `nested\..\..\secret.txt`, err: "is outside the config file's directory"},
			{path: `\secret.txt`, err: "is an absolute path"},
			{path: "/etc/hostname", err: "is an absolute path"},
			{path: filepath.VolumeName(root) + `secret.txt`, err: "is outside the config file's directory"},
			{path: filepath.VolumeName(root) + `/secret.txt`, err: "is an absolute path"},
		}...)
	}
	fn := fileFunc(dir)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if tt.link {
				testconfig.NeedSymlinks(t)
			}
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

// TestExampleMissingFile: file() of a missing file says which directory it
// looked in and that paths are relative to it, without HCL's "Invalid value
// for "path" parameter", and points at the path.
func TestExampleMissingFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"tools.hcl": `tool "t" {
  template {
    text = "x"
  }
  example "e" {
    response = file("nope.json")
    result   = "x"
  }
}
`,
	})
	// Loaded from the directory itself, as "toolhost validate ." does: the
	// message names the directory all the same.
	t.Chdir(dir)
	cfg, diags := Load([]string{"tools.hcl"}, &Options{LookupEnv: mapEnv(nil)})
	if diags.HasErrors() {
		t.Fatal(FormatDiagnostics(diags))
	}
	_, d := cfg.Tools[0].Examples[0].Evaluate(Functions(mapEnv(nil)))
	if len(d) != 1 {
		t.Fatalf("want one diagnostic, got:\n%s", FormatDiagnostics(d))
	}
	abs, _ := filepath.Abs(".")
	if !hasDiag(d, "Cannot read file", `file() cannot read "nope.json": there is no file nope.json in `+abs+", the config file's directory, which file() paths are relative to") {
		t.Errorf("got:\n%s", FormatDiagnostics(d))
	}
	if strings.Contains(d[0].Detail, "parameter") {
		t.Errorf("detail names the function's parameter: %s", d[0].Detail)
	}
	if s := d[0].Subject; s == nil || s.Start.Line != 6 || s.Start.Column != 21 || s.End.Column != 32 {
		t.Errorf("subject %v, want the path, line 6 columns 21 to 32", s)
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

// TestFindTypeMismatch finds the innermost part of an expected value that
// does not fit the field's type, names what the type wants there, and
// gives the path ExprRangeAt turns into the tightest caret.
func TestFindTypeMismatch(t *testing.T) {
	tests := []struct {
		name, typ, value string
		// path is the text ExprRangeAt(value, mismatch path) covers; "" for
		// no mismatch.
		at, want string
	}{
		{"nested number", `list(object({ title = string, hot = number }))`, `[{ title = "a", hot = 1 }, { title = "b", hot = "five" }]`, `"five"`, `expected a number, got "five"`},
		{"fits", `list(object({ title = string, hot = number }))`, `[{ title = "a", hot = "1" }]`, "", ""},
		{"number for string converts", `object({ name = string })`, `{ name = 5 }`, "", ""},
		{"fraction for integer", `object({ n = integer })`, `{ n = 1.5 }`, `1.5`, `expected a whole number, got 1.5`},
		{"bool", `map(bool)`, `{ a = true, b = "maybe" }`, `"maybe"`, `expected true or false, got "maybe"`},
		{"list for object", `list(object({ a = string }))`, `[["x"]]`, `["x"]`, `expected an object (object({ a = string })), got ["x"]`},
		{"object for list", `object({ tags = list(string) })`, `{ tags = "a,b" }`, `"a,b"`, `expected a list (list(string)), got "a,b"`},
		{"missing attribute", `object({ a = string, b = number })`, `{ a = "x" }`, `{ a = "x" }`, `with the attribute "b"`},
		{"missing optional attribute", `object({ a = string, b = optional(number) })`, `{ a = "x" }`, "", ""},
		{"null", `list(string)`, `["a", null]`, `null`, `null is allowed only for an attribute declared optional(...)`},
		{"null optional", `object({ a = optional(string) })`, `{ a = null }`, "", ""},
		{"tuple length", `tuple([string, number])`, `["a"]`, `["a"]`, `expected a tuple of 2 items`},
		{"tuple element", `tuple([string, number])`, `["a", "b"]`, `"b"`, `expected a number, got "b"`},
		{"any", `any`, `{ x = [1, "a"] }`, "", ""},
		{"extra attributes dropped", `object({ a = string })`, `{ a = "x", b = 1 }`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			texpr, diags := hclsyntax.ParseExpression([]byte(tt.typ), "t.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			typ, diags := ParseType(texpr)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			vexpr, diags := hclsyntax.ParseExpression([]byte(tt.value), "v.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			v, diags := vexpr.Value(nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			m := FindTypeMismatch(typ, v)
			if tt.at == "" {
				if m != nil {
					t.Fatalf("mismatch %v at %v; want none", m, m.Path)
				}
				return
			}
			if m == nil {
				t.Fatal("no mismatch found")
			}
			if !strings.Contains(m.String(), tt.want) {
				t.Errorf("message %q, want it to contain %q", m.String(), tt.want)
			}
			r := ExprRangeAt(vexpr, m.Path)
			if got := string(r.SliceBytes([]byte(tt.value))); got != tt.at {
				t.Errorf("range %q, want %q (path %v)", got, tt.at, m.Path)
			}
		})
	}
}
