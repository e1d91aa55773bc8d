package hclfmt

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"
)

// cases are layouts that exercise each pass of the formatter: indentation,
// spacing between tokens, the alignment of equals signs and comments,
// heredocs, templates, and input with syntax errors (formatted on a best
// effort, which must still be hclwrite's).
var cases = map[string]string{
	"empty":           "",
	"attributes":      "a=1\nlonger_name   =   \"x\"\nb= [1,2 ,3]\n",
	"block":           "tool \"x\" {\ndescription=\"d\"\n  param \"q\" {\n type = string\n     }\n}\n",
	"comments":        "# head\na = 1 # one\nbbb = 2 // two\n/* block */\nc = 3\n",
	"object":          "x = {\na=1\nbbbb = \"two\"\n  nested = { k = [ 1, { z = 2 } ] }\n}\n",
	"for":             "x = [for k, v in var.m : upper(v) if k != \"a\"]\ny = {for k in l: k => k...}\n",
	"in keyword":      "x = [for in in l : in]\n",
	"operators":       "x = a+b*c-!d\ny = a?b:c\nz = -1\nw = a==b&&c||d\n",
	"template":        "x = \"hello ${ name } %{ if cond }yes%{ else }no%{ endif }\"\n",
	"heredoc":         "x = <<EOT\n  keep   this\n    as is\nEOT\ny = <<-EOT\n    indented\n  EOT\n",
	"unicode":         "名前 = \"値\"\nlonger_ascii = \"é\"\nx👍 = 1\n",
	"tabs and cr":     "a\t=\t1\r\nb = 2\r\n",
	"splat and index": "x = a[*].b\ny = a.*.c\nz = a[0][\"k\"]\n",
	"function calls":  "x = f( a,b , c... )\ny = sensitive(env(\"TOKEN\"))\n",
	"syntax error":    "a = \nb = {\n",
	"unterminated":    "x = \"abc\ny = 1\n",
	"long chain":      "a = 1\n\nbb = 2\nccc = 3\n# break\ndddd = 4\n",
}

func TestFormatIsHCLWrites(t *testing.T) {
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			checkSame(t, []byte(src))
		})
	}
}

// TestFormatRepoConfigs formats every HCL file in the repository (the
// examples, the test fixtures, the benchmark configs) both ways.
func TestFormatRepoConfigs(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".hcl") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		t.Run(path, func(t *testing.T) { checkSame(t, src) })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("found %d .hcl files under %s; expected the examples and the fixtures", n, root)
	}
}

func FuzzFormat(f *testing.F) {
	for _, src := range cases {
		f.Add([]byte(src))
	}
	if src, err := os.ReadFile(filepath.Join("..", "..", "examples", "tools.hcl")); err == nil {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkSame(t, src)
	})
}

func checkSame(t *testing.T, src []byte) {
	t.Helper()
	want := hclwrite.Format(src)
	got := Format(src)
	if !bytes.Equal(got, want) {
		t.Fatalf("Format differs from hclwrite.Format\ninput:\n%q\nhclwrite:\n%q\nhclfmt:\n%q", src, want, got)
	}
}
