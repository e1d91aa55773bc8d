package hclfmt

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// layouts are sources in every shape the formatter has a rule for, laid
// out badly.
var layouts = []string{
	"",
	"\n\n",
	"a=1\nbb  =  2\n\n  ccc= 3 # three\nd = [1,2 ,3]\n",
	"tool \"x\"{\ndescription=\"d\"\n  param \"p\" {\n type=string\n    }\ntemplate {text=\"${param.p}!\"}\n}\n",
	"x = {\na = 1\n  bb = {c=2}\n}\ny = {}\nz = [ ]\n",
	"a = -1\nb = 1 - -2\nc = !true\nd = (1-2)*-3\ne = x[0].y[\"k\"]\nf = [for v in [1,2] : v*2]\ng = {for k, v in m : k => v...}\n",
	"h = f(1,2, g( 3 ))\ni = provider::ns::fn(1)\nj = a ? b : c\nk = a && b || !c\nl = a == b != c\nm = 1 <= 2 >= 3 < 4 > 5\nn = 7 % 2 / 1\n",
	"t = \"a ${x} %{ if y }b%{ endif } ${ {a = 1} }\"\nu = \"$${lit}\"\n",
	"h = <<EOT\n  keep   this\n    ${x}\nEOT\ni = <<-EOT\n    indented\n    EOT\n",
	"# lead comment\n// another\n/* block */ a = 1\nb = 2 /* inline */\nc = 3 // trailing\ndd = 4 # trailing\n",
	"block {\n  a = [\n1,\n  2,\n]\n  b = {\n x = 1\n}\n}\n",
	"bad = [1, 2\nnext = 3\n}\n}\n",
	"a = \"日本語\" # wide\nbbbb = \"é\" # accent\n",
	"splat = a[*].b\nlegacy = a.*.b\nidx = a[0][1]\ncall = f()[0]\n",
	"x = [\n  # comment in a list\n  1, # one\n  22, # twenty-two\n]\n",
	"\tindented = \"with a tab\"\n",
}

// sources returns the layouts and every .hcl file of the module.
func sources(t testing.TB) map[string][]byte {
	srcs := map[string][]byte{}
	for i, l := range layouts {
		srcs["layout "+string(rune('a'+i))] = []byte(l)
	}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".hcl") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			srcs[path] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

// TestFormatAsHCLWrite formats the layouts and every .hcl file of the
// module, as they are and with their indentation and spacing spoiled, and
// compares the result with hclwrite's formatter, the canonical style.
func TestFormatAsHCLWrite(t *testing.T) {
	srcs := sources(t)
	if len(srcs) < len(layouts)+50 {
		t.Fatalf("found %d sources, want the module's .hcl files too", len(srcs))
	}
	for name, src := range srcs {
		for _, variant := range []struct {
			name string
			src  []byte
		}{{"as is", src}, {"spoiled", spoil(src)}} {
			if got, want := Format(variant.src), hclwrite.Format(variant.src); string(got) != string(want) {
				t.Errorf("%s, %s:\n%s\nwant\n%s", name, variant.name, got, want)
			}
		}
	}
}

// spoil indents every line of src by its number's remainder of three and
// doubles the spaces after equals signs and commas.
func spoil(src []byte) []byte {
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		l = strings.Repeat(" ", i%3) + strings.TrimLeft(l, " ")
		lines[i] = strings.NewReplacer("= ", "=  ", ", ", ",  ").Replace(l)
	}
	return []byte(strings.Join(lines, "\n"))
}

// FuzzFormat compares Format with hclwrite's formatter on any input.
func FuzzFormat(f *testing.F) {
	for _, l := range layouts {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if got, want := Format(src), hclwrite.Format(src); string(got) != string(want) {
			t.Fatalf("%q:\n%q\nwant\n%q", src, got, want)
		}
	})
}

// quoted are strings with everything Quote escapes.
var quoted = []string{"", "plain", `say "hi"`, `C:\dir`, "a\nb\r\tc", "${x} and %{if y}", "$$ % $", "$", "%", "e\u0301", "\x00\x1f\u200b\U000e0001", "bad \xff utf-8", "日本語"}

// TestQuoteAsHCLWrite compares Quote with the quoted string hclwrite
// writes for the same value.
func TestQuoteAsHCLWrite(t *testing.T) {
	for _, s := range quoted {
		if got, want := Quote(s), string(hclwrite.TokensForValue(cty.StringVal(s)).Bytes()); got != want {
			t.Errorf("Quote(%q) = %s, want %s", s, got, want)
		}
	}
}

// FuzzQuote compares Quote with hclwrite on any string.
func FuzzQuote(f *testing.F) {
	for _, s := range quoted {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Quote(s), string(hclwrite.TokensForValue(cty.StringVal(s)).Bytes()); got != want {
			t.Fatalf("Quote(%q) = %s, want %s", s, got, want)
		}
	})
}
