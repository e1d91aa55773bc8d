package hcl

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to Load as a config file. Load may report
// any diagnostics, but it must never panic, and a config without errors
// must have its schemas compiled.
func FuzzLoad(f *testing.F) {
	seeds := []string{filepath.Join("..", "examples", "tools.hcl")}
	// The crasher that made serve panic: a bound beyond float64.
	f.Add([]byte("tool \"z\" {\n  param \"b\" {\n    type = number\n    minimum = 1e400\n  }\n  template { text = \"x\" }\n}\n"))
	f.Add([]byte("tool \"z\" {\n  param \"b\" {\n    type = number\n    default = 1e400\n  }\n  template { text = \"x\" }\n}\n"))
	// Line ends and encodings that ExplainSyntaxErrors explains.
	f.Add([]byte("tool \"a\" {\r  template { text = \"x\" }\r}\r"))
	f.Add([]byte("a = 1\nb = 2\r c = 3\r\n"))
	f.Add([]byte("\xFF\xFEa\x00 \x00=\x00 \x001\x00\n\x00"))
	f.Add([]byte("\x00a\x00 \x00=\x00 \x001\x00\n"))
	_ = filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".hcl") {
			seeds = append(seeds, path)
		}
		return nil
	})
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "tools.hcl")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, diags := Load([]string{path}, &Options{LookupEnv: mapEnv(map[string]string{"HOME": "/home/fuzz"})})
		if cfg == nil {
			t.Fatal("Load returned a nil config")
		}
		_ = FormatDiagnostics(diags)
		if diags.HasErrors() {
			return
		}
		for _, tool := range cfg.Tools {
			if tool.InputSchema() == nil || tool.Backend == nil {
				t.Fatalf("tool %q loaded without errors but is not compiled", tool.Name)
			}
			if hasFields := tool.Result != nil && len(tool.Result.Fields) > 0; hasFields != (tool.OutputSchema() != nil) {
				t.Fatalf("tool %q: result block and output schema disagree", tool.Name)
			}
			// The SDK decodes the schemas into Go maps when a tool is
			// registered, and panics when it cannot (a +Inf bound, a
			// 1e400 default did): every schema must decode.
			for _, schema := range []json.RawMessage{tool.InputSchemaJSON, tool.OutputSchemaJSON} {
				if schema == nil {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal(schema, &m); err != nil {
					t.Fatalf("tool %q: its schema does not decode: %v\n%s", tool.Name, err, schema)
				}
			}
			_ = tool.Backend.Close()
		}
	})
}
