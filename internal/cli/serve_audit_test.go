package cli

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditLogPath opens the audit log at paths a user may give: a
// config's .hcl path (serve --audit-log tools.hcl, the audit log's own
// path forgotten) is refused as a usage error and left as it was,
// instead of having records appended to the config; another path opens.
func TestAuditLogPath(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tools.hcl")
	const config = "tool \"t\" {}\n"
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		code int
		msg  string
	}{
		{cfg, ExitUsage, "names an .hcl file, which toolhost reads as config"},
		{filepath.Join(dir, "more", "Ops.HCL"), ExitUsage, "such as --audit-log audit.jsonl"},
		{filepath.Join(dir, "audit.jsonl"), ExitOK, ""},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			var stderr bytes.Buffer
			f := &auditFlags{path: c.path}
			_, closeAudit, code := f.open(true, &stderr, slog.New(slog.NewTextHandler(io.Discard, nil)))
			closeAudit()
			if code != c.code || !strings.Contains(stderr.String(), c.msg) {
				t.Errorf("open(%s) = %d, %q; want %d, %q", c.path, code, stderr.String(), c.code, c.msg)
			}
		})
	}
	if got, err := os.ReadFile(cfg); err != nil || string(got) != config {
		t.Errorf("the config holds %q, %v; want it as it was", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "more")); err == nil {
		t.Error("the refused path's directory was made")
	}
}
