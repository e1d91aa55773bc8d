package hcl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSensitiveDefaultStaysHidden: a sensitive parameter's default, read
// from the environment, is in neither the schema clients see nor a
// diagnostic about it.
func TestSensitiveDefaultStaysHidden(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.hcl")
	src := `tool "t" {
  description = "d"
  param "token" {
    type      = string
    sensitive = true
    default   = env("SECRET_TOKEN")
  }
  param "pin" {
    type       = string
    sensitive  = true
    default    = env("SECRET_TOKEN")
    max_length = 4
  }
  template { text = "ok" }
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := Load([]string{path}, &Options{LookupEnv: mapEnv(map[string]string{"SECRET_TOKEN": secret})})
	if !diags.HasErrors() {
		t.Fatal("a default longer than max_length was accepted")
	}
	for _, d := range diags {
		if strings.Contains(d.Summary+d.Detail, secret) {
			t.Errorf("diagnostic leaks the secret: %s", FormatDiagnostic(d))
		}
	}
	src = strings.Replace(src, "    max_length = 4\n", "", 1)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags = Load([]string{path}, &Options{LookupEnv: mapEnv(map[string]string{"SECRET_TOKEN": secret})})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if strings.Contains(string(cfg.Tools[0].InputSchemaJSON), secret) {
		t.Errorf("the input schema carries the secret default: %s", cfg.Tools[0].InputSchemaJSON)
	}
}
