package hcl

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

var update = flag.Bool("update", false, "rewrite golden files")

// writeFiles writes name → content into a new temporary directory and
// returns the directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadString loads one config file holding src, with env() reading env.
func loadString(t *testing.T, src string, env map[string]string) (*Config, hcl.Diagnostics) {
	t.Helper()
	dir := writeFiles(t, map[string]string{"tools.hcl": src})
	return Load([]string{filepath.Join(dir, "tools.hcl")}, &Options{LookupEnv: mapEnv(env)})
}

// mapEnv is an EnvLookup over a fixed map, so tests do not depend on the
// environment they run in.
func mapEnv(env map[string]string) EnvLookup {
	return func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	}
}

// errorsOf returns the error diagnostics of diags.
func errorsOf(diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			out = append(out, d)
		}
	}
	return out
}

// mustLoad loads paths and fails the test on any diagnostic, except a
// warning that its fixture line announces with "# WARNING: Summary".
func mustLoad(t *testing.T, paths ...string) *Config {
	t.Helper()
	cfg, diags := Load(paths, &Options{LookupEnv: mapEnv(nil)})
	var unexpected hcl.Diagnostics
	for _, d := range diags {
		if d.Severity != hcl.DiagWarning || !annotated(d) {
			unexpected = append(unexpected, d)
		}
	}
	if len(unexpected) > 0 {
		t.Fatalf("Load(%v): unexpected diagnostics:\n%s", paths, FormatDiagnostics(unexpected))
	}
	return cfg
}

// annotated reports whether the source line a diagnostic points at carries
// the annotation "# ERROR: Summary" or "# WARNING: Summary" for it.
func annotated(d *hcl.Diagnostic) bool {
	if d.Subject == nil {
		return false
	}
	src, err := os.ReadFile(d.Subject.Filename)
	if err != nil {
		return false
	}
	lines := strings.Split(string(src), "\n")
	if d.Subject.Start.Line < 1 || d.Subject.Start.Line > len(lines) {
		return false
	}
	line := lines[d.Subject.Start.Line-1]
	tag := "# ERROR: "
	if d.Severity == hcl.DiagWarning {
		tag = "# WARNING: "
	}
	for _, part := range strings.Split(line, tag)[1:] {
		summary, _, _ := strings.Cut(part, " # ")
		if strings.TrimSpace(summary) == d.Summary {
			return true
		}
	}
	return false
}

// hasDiag reports whether diags has an error whose summary is summary and
// whose detail contains every one of details.
func hasDiag(diags hcl.Diagnostics, summary string, details ...string) bool {
	for _, d := range errorsOf(diags) {
		if d.Summary != summary {
			continue
		}
		ok := true
		for _, s := range details {
			if !strings.Contains(d.Detail, s) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// examplesConfig is the project's example config, which must stay valid.
var examplesConfig = filepath.Join("..", "examples", "tools.hcl")
