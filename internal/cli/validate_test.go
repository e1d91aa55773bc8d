package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/host"
)

// TestGitHubDuplicatePaths declares a tool twice, in two files of a
// directory given relative and absolute: the error's detail and the
// notice's message both write the files' paths as the config was named
// (the file properties, for GitHub, are relative to the repository).
func TestGitHubDuplicatePaths(t *testing.T) {
	t.Chdir(t.TempDir())
	wd, err := os.Getwd() // as repoPath sees it (macOS's /var is /private/var)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("dup", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.hcl", "b.hcl"} {
		if err := os.WriteFile(filepath.Join("dup", name), []byte("tool \"dup\" {\n  template {\n    text = \"x\"\n  }\n}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"dup", filepath.Join(wd, "dup")} {
		t.Run(dir, func(t *testing.T) {
			reg, diags := host.Load([]string{dir}, nil)
			defer reg.Close()
			var out bytes.Buffer
			writeGitHubDiags(&out, diags)
			for _, want := range []string{
				"::error file=dup/b.hcl,line=1,col=1,endLine=1,endColumn=11,title=Duplicate tool::The tool \"dup\" is already declared at " + filepath.Join(dir, "a.hcl") + ":1:1. ",
				"::notice file=dup/a.hcl,line=1,col=1,endLine=1,endColumn=11,title=First declaration::The tool \"dup\" declared here is declared again at " + filepath.Join(dir, "b.hcl") + ":1:1.\n",
			} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}
