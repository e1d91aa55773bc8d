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

// TestEnvValuesRedactedInDiagnostics: a value read with env() stays out of
// a diagnostic that quotes it, whatever the quoting does to it (escaped
// quotes, a trailing newline from a secrets file).
func TestEnvValuesRedactedInDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name, value string
	}{
		{"plain", "s3cr3t-v4lue"},
		{"trailing newline", "s3cr3t-v4lue\n"},
		{"quote and newline", "s3cr3t-\"v4lue\n"},
		{"non-ASCII", "s3cr3t-密码"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tools.hcl")
			src := `tool "t" {
  description = "d"
  http {
    url     = "https://api.example.com/x"
    timeout = env("API_SECRET")
  }
}
`
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags := Load([]string{path}, &Options{LookupEnv: mapEnv(map[string]string{"API_SECRET": tc.value})})
			if !diags.HasErrors() {
				t.Fatal("a timeout that is not a duration was accepted")
			}
			text := diags.Error()
			if strings.Contains(text, "s3cr3t") || strings.Contains(text, "v4lue") {
				t.Errorf("diagnostics show the value: %s", text)
			}
			if !strings.Contains(text, "(redacted)") {
				t.Errorf("diagnostics do not say (redacted): %s", text)
			}
		})
	}
}
