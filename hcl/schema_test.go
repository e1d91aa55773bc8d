package hcl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// toolSchemas is what a golden file holds for one tool.
type toolSchemas struct {
	Name         string             `json:"name"`
	InputSchema  *jsonschema.Schema `json:"inputSchema"`
	OutputSchema *jsonschema.Schema `json:"outputSchema,omitempty"`
}

// TestSchemasGolden loads each testdata/schemas/NAME.hcl and compares the
// input and output schemas of its tools with NAME.golden.json. Run with
// -update to rewrite the golden files, then review them by eye.
func TestSchemasGolden(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("testdata", "schemas", "*.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fixtures) == 0 {
		t.Fatal("no fixtures in testdata/schemas")
	}
	for _, fixture := range fixtures {
		name := strings.TrimSuffix(filepath.Base(fixture), ".hcl")
		t.Run(name, func(t *testing.T) {
			cfg := mustLoad(t, fixture)
			var got []toolSchemas
			for _, tool := range cfg.Tools {
				got = append(got, toolSchemas{Name: tool.Name, InputSchema: tool.InputSchema(), OutputSchema: tool.OutputSchema()})
			}
			b, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, '\n')
			golden := filepath.Join("testdata", "schemas", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(b, want) {
				t.Errorf("schemas differ from %s (run go test -update to rewrite it, then review the diff)\n%s", golden, firstDiff(string(want), string(b)))
			}
		})
	}
}

// TestSchemasValid checks every schema of the golden fixtures the way a
// client would: it resolves as a JSON Schema, and every default is valid
// against the schema of its own property.
func TestSchemasValid(t *testing.T) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "schemas", "*.hcl"))
	for _, fixture := range fixtures {
		cfg := mustLoad(t, fixture)
		for _, tool := range cfg.Tools {
			t.Run(tool.Name, func(t *testing.T) {
				in := tool.InputSchema()
				if in.Type != "object" {
					t.Errorf("input schema type = %q, want object", in.Type)
				}
				if in.AdditionalProperties == nil || in.AdditionalProperties.Not == nil {
					t.Errorf("input schema does not forbid additional properties")
				}
				if _, err := in.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
					t.Errorf("input schema does not resolve with its defaults validated: %v", err)
				}
				if out := tool.OutputSchema(); out != nil {
					if out.Type != "object" {
						t.Errorf("output schema type = %q, want object", out.Type)
					}
					if _, err := out.Resolve(nil); err != nil {
						t.Errorf("output schema does not resolve: %v", err)
					}
				}
			})
		}
	}
}

// firstDiff describes the first line where want and got differ, with some
// context.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			from := max(0, i-3)
			return fmt.Sprintf("first difference at line %d:\ncontext:\n%s\nwant: %s\n got: %s", i+1, strings.Join(gl[from:i], "\n"), w, g)
		}
	}
	return "(no line differs)"
}

// normalizeSchema decodes schema JSON and rewrites the boolean schemas true
// and false as {} and {"not": {}}, which JSON Schema defines as equivalent.
func normalizeSchema(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	var walk func(v any, isSchema bool) any
	walk = func(v any, isSchema bool) any {
		switch x := v.(type) {
		case bool:
			if !isSchema {
				return x
			}
			if x {
				return map[string]any{}
			}
			return map[string]any{"not": map[string]any{}}
		case map[string]any:
			if !isSchema {
				return x
			}
			for k, sub := range x {
				switch k {
				case "properties":
					m, _ := sub.(map[string]any)
					for name, ps := range m {
						m[name] = walk(ps, true)
					}
				case "items", "additionalProperties", "not":
					x[k] = walk(sub, true)
				case "prefixItems":
					l, _ := sub.([]any)
					for i, ps := range l {
						l[i] = walk(ps, true)
					}
				}
			}
			return x
		}
		return v
	}
	return walk(v, true)
}

// TestSchemaJSON checks that the schemas rendered once for clients
// (InputSchemaJSON, OutputSchemaJSON) say the same as the schemas
// themselves, for every fixture that loads.
func TestSchemaJSON(t *testing.T) {
	var fixtures []string
	for _, pattern := range []string{"testdata/schemas/*.hcl", "testdata/valid/*.hcl", examplesConfig} {
		m, _ := filepath.Glob(filepath.FromSlash(pattern))
		fixtures = append(fixtures, m...)
	}
	for _, fixture := range fixtures {
		cfg := mustLoad(t, fixture)
		for _, tool := range cfg.Tools {
			t.Run(filepath.Base(fixture)+"/"+tool.Name, func(t *testing.T) {
				check := func(what string, s *jsonschema.Schema, rendered json.RawMessage) {
					t.Helper()
					if s == nil {
						if rendered != nil {
							t.Errorf("%s: rendered %s for a nil schema", what, rendered)
						}
						return
					}
					want, err := json.Marshal(s)
					if err != nil {
						t.Fatal(err)
					}
					if !json.Valid(rendered) {
						t.Fatalf("%s: rendered schema is not JSON: %s", what, rendered)
					}
					if !reflect.DeepEqual(normalizeSchema(t, rendered), normalizeSchema(t, want)) {
						t.Errorf("%s differs from the schema\nrendered: %s\n    want: %s", what, rendered, want)
					}
					if !bytes.Equal(SchemaJSON(s), rendered) {
						t.Errorf("%s is not SchemaJSON of the schema", what)
					}
				}
				check("InputSchemaJSON", tool.InputSchema(), tool.InputSchemaJSON)
				check("OutputSchemaJSON", tool.OutputSchema(), tool.OutputSchemaJSON)
				if !bytes.HasPrefix(tool.InputSchemaJSON, []byte(`{"type":"object"`)) {
					t.Errorf("InputSchemaJSON does not start with {\"type\":\"object\": %s", tool.InputSchemaJSON)
				}
			})
		}
	}
}

// TestSchemaJSONEscaping renders texts and numbers that need care in JSON.
func TestSchemaJSONEscaping(t *testing.T) {
	cfg, diags := loadString(t, `
tool "escapes" {
  title       = "Quotes \" and <tags> & 北京"
  description = "Line one\nline two\ttabbed \\ backslash"
  param "q" {
    type        = string
    title       = "\u2028 separator"
    description = "emoji 🙂 and control \u0001"
    pattern     = "^\\d+\\.\"x\"$"
    default     = "1.\"x\""
    enum        = ["1.\"x\"", "22.\"x\""]
  }
  param "big" {
    type    = number
    minimum = -1e21
    maximum = 1e21
    default = 0.1
  }
  param "huge" {
    type    = integer
    default = 123456789012345678901234567890
  }
  template {
    text = "x"
  }
}
`, nil)
	if len(diags) > 0 {
		t.Fatalf("unexpected diagnostics:\n%s", FormatDiagnostics(diags))
	}
	tool := cfg.Tools[0]
	if !json.Valid(tool.InputSchemaJSON) {
		t.Fatalf("not JSON: %s", tool.InputSchemaJSON)
	}
	want, err := json.Marshal(tool.InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(normalizeSchema(t, tool.InputSchemaJSON), normalizeSchema(t, want)) {
		t.Errorf("rendered schema differs\nrendered: %s\n    want: %s", tool.InputSchemaJSON, want)
	}
	var m struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
			Pattern string          `json:"pattern"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.InputSchemaJSON, &m); err != nil {
		t.Fatal(err)
	}
	if got, want := m.Properties["q"].Pattern, `^\d+\."x"$`; got != want {
		t.Errorf("pattern = %q, want %q", got, want)
	}
	if got := string(m.Properties["big"].Default); got != "0.1" {
		t.Errorf("default 0.1 rendered as %s", got)
	}
	if got := string(m.Properties["huge"].Default); got != "123456789012345678901234567890" {
		t.Errorf("default 123456789012345678901234567890 rendered as %s", got)
	}
}
