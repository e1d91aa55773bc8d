package hcl

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSchemaJSONMatchesEncoder checks the fast schema encoder against the
// jsonschema package's own encoder on every schema the fixtures compile to.
func TestSchemaJSONMatchesEncoder(t *testing.T) {
	files, _ := filepath.Glob("testdata/schemas/*.hcl")
	valid, _ := filepath.Glob("testdata/valid/*.hcl")
	files = append(append(files, valid...), examplesConfig)
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		cfg, diags := Load([]string{f}, nil)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", f, diags.Error())
		}
		for _, tool := range cfg.Tools {
			pairs := [][2]any{{tool.InputSchemaJSON, tool.InputSchema()}}
			if tool.OutputSchema() != nil {
				pairs = append(pairs, [2]any{tool.OutputSchemaJSON, tool.OutputSchema()})
			}
			for _, p := range pairs {
				want, err := json.Marshal(p[1])
				if err != nil {
					t.Fatal(err)
				}
				var got, exp any
				if err := json.Unmarshal(p[0].(json.RawMessage), &got); err != nil {
					t.Fatalf("%s %s: fast encoder wrote invalid JSON: %v", f, tool.Name, err)
				}
				_ = json.Unmarshal(want, &exp)
				// The encoder writes the empty schema {} as true; they mean
				// the same, so both sides map true to {}.
				if !reflect.DeepEqual(trueAsEmpty(got), trueAsEmpty(exp)) {
					t.Errorf("%s %s:\nfast:    %s\nencoder: %s", f, tool.Name, p[0], want)
				}
			}
		}
	}
}

func trueAsEmpty(v any) any {
	switch x := v.(type) {
	case bool:
		if x {
			return map[string]any{}
		}
	case map[string]any:
		for k, e := range x {
			x[k] = trueAsEmpty(e)
		}
	case []any:
		for i, e := range x {
			x[i] = trueAsEmpty(e)
		}
	}
	return v
}
