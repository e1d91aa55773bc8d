package diagtext

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestRenderCarets renders a diagnostic without colour: HCL's layout,
// no escape sequences, and carets under exactly the subject, also after
// tabs and wide characters.
func TestRenderCarets(t *testing.T) {
	tests := []struct {
		name, src, subject, want string
	}{
		{"ascii", "a = \"hello ${param.nme}\"\n", "param.nme", "   1: a = \"hello ${param.nme}\"\n                   ^^^^^^^^^\n"},
		{"wide", "t = \"北京 ${x}\"\n", "x", "   1: t = \"北京 ${x}\"\n                  ^\n"},
		{"tab", "\tb = nope\n", "nope", "   1: \tb = nope\n      \t    ^^^^\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(tt.src), "t.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			start := strings.Index(tt.src, tt.subject)
			rng := hcl.Range{
				Filename: "t.hcl",
				Start:    hcl.Pos{Line: 1, Column: 1 + len([]rune(tt.src[:start])), Byte: start},
				End:      hcl.Pos{Line: 1, Column: 1 + len([]rune(tt.src[:start+len(tt.subject)])), Byte: start + len(tt.subject)},
			}
			var buf bytes.Buffer
			Render(&buf, map[string]*hcl.File{"t.hcl": f}, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Oops", Detail: "Fix it.", Subject: &rng}}, false, 0)
			out := buf.String()
			if strings.Contains(out, "\x1b") {
				t.Errorf("escape sequences without colour:\n%q", out)
			}
			if !strings.HasPrefix(out, "Error: Oops\n\n  on t.hcl line 1:\n") || !strings.Contains(out, tt.want) || !strings.HasSuffix(out, "Fix it.\n\n") {
				t.Errorf("got:\n%s\nwant it to contain:\n%s", out, tt.want)
			}
		})
	}
}
