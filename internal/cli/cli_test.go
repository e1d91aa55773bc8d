package cli

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"
	thcl "github.com/toolhost/toolhost/hcl"
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

// TestRepoPath: a config path inside the working directory is given
// relative to it, with slashes; others as they are. Absolute paths have a
// drive letter on Windows.
func TestRepoPath(t *testing.T) {
	abs := func(p string) string {
		if runtime.GOOS == "windows" {
			p = "C:" + p
		}
		return filepath.FromSlash(p)
	}
	wd := abs("/work/repo")
	tests := []struct{ name, want string }{
		{"tools.hcl", "tools.hcl"},
		{filepath.FromSlash("conf/tools.hcl"), "conf/tools.hcl"},
		{abs("/work/repo/conf/tools.hcl"), "conf/tools.hcl"},
		{abs("/elsewhere/tools.hcl"), filepath.ToSlash(abs("/elsewhere/tools.hcl"))},
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

// TestModuleVersion: go install ...@vX.Y.Z builds without the -X flag of
// the release builds; the version reported is then the module's, and a
// checkout's build (devel or a pseudo-version) keeps the one in the source.
func TestModuleVersion(t *testing.T) {
	for _, tc := range []struct{ stamped, module, want string }{
		{thcl.SourceVersion, "v1.2.3", "1.2.3"},
		{thcl.SourceVersion, "v10.20.30", "10.20.30"},
		{"1.4.0", "v1.2.3", "1.4.0"},                                                   // stamped by -X: kept
		{thcl.SourceVersion, "(devel)", thcl.SourceVersion},                            // go build in a checkout
		{thcl.SourceVersion, "", thcl.SourceVersion},                                   // no module information
		{thcl.SourceVersion, "v0.0.0-20261129040000-5780b85c3a1e", thcl.SourceVersion}, // a pseudo-version
		{thcl.SourceVersion, "v1.2.4-0.20261129040000-5780b85c3a1e+dirty", thcl.SourceVersion},
		{thcl.SourceVersion, "v1.3.0-rc.1", thcl.SourceVersion},
		{thcl.SourceVersion, "v1.2", thcl.SourceVersion},
	} {
		if got := moduleVersion(tc.stamped, tc.module); got != tc.want {
			t.Errorf("moduleVersion(%q, %q) = %q, want %q", tc.stamped, tc.module, got, tc.want)
		}
	}
}
