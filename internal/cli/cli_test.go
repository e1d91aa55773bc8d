package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// TestStarterConfigFormatted keeps init's starter in fmt's style.
func TestStarterConfigFormatted(t *testing.T) {
	if got := string(hclwrite.Format([]byte(starterConfig))); got != starterConfig {
		t.Errorf("the starter config is not formatted; toolhost fmt would make it:\n%s", got)
	}
}

// TestFmtStopsBetweenFiles: fmt told to stop (its context cancelled, as a
// stop signal does once it has installed the handlers) rewrites no more
// files, says how many it left, and exits 1.
func TestFmtStopsBetweenFiles(t *testing.T) {
	dir := t.TempDir()
	messy := "tool \"a\" {\ndescription=\"x\"\n  template { text = \"hi\" }\n}\n"
	for _, name := range []string{"a.hcl", "b.hcl"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(messy), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	if code := runFmt(ctx, []string{dir}, &stdout, &stderr); code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
	if !strings.Contains(stderr.String(), "toolhost fmt: stopped by a signal; 2 files not checked") {
		t.Errorf("stderr %q", stderr.String())
	}
	for _, name := range []string{"a.hcl", "b.hcl"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != messy {
			t.Errorf("%s was rewritten", name)
		}
	}
	// Not stopped: both are rewritten.
	stdout.Reset()
	if code := runFmt(context.Background(), []string{dir}, &stdout, &stderr); code != ExitOK || strings.Count(stdout.String(), ".hcl") != 2 {
		t.Errorf("exit %d, stdout %q; want both files rewritten", code, stdout.String())
	}
}
