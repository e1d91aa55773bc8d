package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

func TestGitHubEscaping(t *testing.T) {
	tests := []struct{ in, data, prop string }{
		{"plain text", "plain text", "plain text"},
		{"100% sure", "100%25 sure", "100%25 sure"},
		{"line one\nline two\r", "line one%0Aline two%0D", "line one%0Aline two%0D"},
		{"a:b,c", "a:b,c", "a%3Ab%2Cc"},
		{"北京, 上海", "北京, 上海", "北京%2C 上海"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := ghData(tt.in); got != tt.data {
				t.Errorf("ghData = %q, want %q", got, tt.data)
			}
			if got := ghProperty(tt.in); got != tt.prop {
				t.Errorf("ghProperty = %q, want %q", got, tt.prop)
			}
		})
	}
}

func TestRepoPath(t *testing.T) {
	wd := filepath.FromSlash("/work/repo")
	tests := []struct{ name, want string }{
		{"tools.hcl", "tools.hcl"},
		{filepath.FromSlash("conf/tools.hcl"), "conf/tools.hcl"},
		{filepath.FromSlash("/work/repo/conf/tools.hcl"), "conf/tools.hcl"},
		{filepath.FromSlash("/elsewhere/tools.hcl"), "/elsewhere/tools.hcl"},
	}
	for _, tt := range tests {
		if got := repoPath(wd, tt.name); got != tt.want {
			t.Errorf("repoPath(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestRenderDiagsCarets renders a diagnostic without colour: HCL's layout,
// no escape sequences, and carets under exactly the subject, also after
// tabs and wide characters.
func TestRenderDiagsCarets(t *testing.T) {
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
			renderDiags(&buf, map[string]*hcl.File{"t.hcl": f}, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Oops", Detail: "Fix it.", Subject: &rng}}, false, 0)
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

// TestStarterConfigFormatted keeps init's starter in fmt's style.
func TestStarterConfigFormatted(t *testing.T) {
	if got := string(hclwrite.Format([]byte(starterConfig))); got != starterConfig {
		t.Errorf("the starter config is not formatted; toolhost fmt would make it:\n%s", got)
	}
}
