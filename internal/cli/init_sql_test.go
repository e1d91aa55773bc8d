package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/toolhost/toolhost/host"
)

// TestInitSQL runs init --sql: the starter and its database are written,
// the config is formatted, validates online without a warning, and its
// search tool finds a note; a second init overwrites nothing.
func TestInitSQL(t *testing.T) {
	if got := string(hclwrite.Format([]byte(starterSQLConfig))); got != starterSQLConfig {
		t.Errorf("the sql starter is not formatted; toolhost fmt would make it:\n%s", got)
	}
	dir := filepath.Join(t.TempDir(), "notes")
	var stdout, stderr bytes.Buffer
	if code := runInit([]string{"--sql", dir}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("init --sql: exit %d: %s", code, stderr.String())
	}
	path := filepath.Join(dir, defaultConfig)
	stdout.Reset()
	if code := runValidate(context.Background(), []string{"--online", path}, &stdout, &stderr); code != ExitOK || strings.Contains(stdout.String(), "warning") {
		t.Fatalf("validate --online: exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	reg, diags := host.Load([]string{path}, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	defer reg.Close()
	res, err := reg.CallTool(context.Background(), "search_notes", []byte(`{"text":"milk"}`))
	if err != nil || res.IsError {
		t.Fatalf("search_notes: %v %+v", err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"body":"Buy milk"`) {
		t.Errorf("search_notes = %s", b)
	}
	stderr.Reset()
	if code := runInit([]string{"--sql", dir}, &stdout, &stderr); code != ExitFailure || !strings.Contains(stderr.String(), "already exists") {
		t.Errorf("second init --sql: exit %d: %s", code, stderr.String())
	}
}
