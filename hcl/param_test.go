package hcl

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestParamSchemaKeywords checks the keywords of single parameters, so that a
// regression names the keyword rather than a whole golden diff.
func TestParamSchemaKeywords(t *testing.T) {
	cfg := mustLoad(t, filepath.Join("testdata", "schemas", "primitives.hcl"), filepath.Join("testdata", "schemas", "collections.hcl"))
	tools := map[string]*Tool{}
	for _, tool := range cfg.Tools {
		tools[tool.Name] = tool
	}
	prop := func(t *testing.T, tool, param string) map[string]any {
		t.Helper()
		tl, ok := tools[tool]
		if !ok {
			t.Fatalf("no tool %q", tool)
		}
		b, err := json.Marshal(tl.InputSchema())
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		props, _ := m["properties"].(map[string]any)
		switch p := props[param].(type) {
		case map[string]any:
			return p
		case bool:
			if p {
				return map[string]any{} // true is the empty schema
			}
		}
		t.Fatalf("tool %q: no property %q in %s", tool, param, b)
		return nil
	}
	tests := []struct {
		tool, param string
		want        map[string]any
	}{
		{"primitives", "name", map[string]any{"type": "string", "title": "Name", "description": "Who to greet.", "minLength": 1.0, "maxLength": 20.0, "pattern": "^[A-Za-z ]+$"}},
		{"primitives", "mode", map[string]any{"type": "string", "enum": []any{"short", "long"}, "default": "short"}},
		{"primitives", "ratio", map[string]any{"type": "number", "minimum": -1.5, "maximum": 1.5, "default": 0.25}},
		{"primitives", "count", map[string]any{"type": "integer", "description": "How many times.", "minimum": 1.0, "maximum": 10.0, "default": 3.0}},
		{"primitives", "level", map[string]any{"type": "integer", "enum": []any{1.0, 2.0, 3.0}}},
		{"primitives", "loud", map[string]any{"type": "boolean", "default": false}},
		{"primitives", "anything", map[string]any{}},
		{"primitives", "untyped", map[string]any{"type": "string", "description": "A param without a type is a string."}},
		{"collections", "tags", map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1.0, "maxItems": 5.0}},
		{"collections", "ids", map[string]any{"type": "array", "items": map[string]any{"type": "integer"}, "uniqueItems": true}},
		{"collections", "labels", map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}, "default": map[string]any{"env": "dev"}}},
		// A tuple has exactly as many items as element types.
		{"collections", "point", map[string]any{"type": "array", "prefixItems": []any{map[string]any{"type": "number"}, map[string]any{"type": "number"}}, "minItems": 2.0, "maxItems": 2.0}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+"/"+tt.param, func(t *testing.T) {
			got := prop(t, tt.tool, tt.param)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(tt.want)
			if !bytes.Equal(gb, wb) {
				t.Errorf("schema of %s.%s\n got: %s\nwant: %s", tt.tool, tt.param, gb, wb)
			}
		})
	}

	t.Run("required", func(t *testing.T) {
		tests := map[string][]string{
			"primitives":  {"name", "level"},
			"collections": {"tags", "point"},
			"no_params":   nil,
		}
		for tool, want := range tests {
			got := tools[tool].InputSchema().Required
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: required = %v, want %v", tool, got, want)
			}
		}
	})
}

// TestParamCheckShortcut: Check's shortcut for a string or bool with
// nothing to check it against gives what conform gives, for every kind of
// value; a constraint of any kind takes conform's way.
func TestParamCheckShortcut(t *testing.T) {
	one := 1
	params := map[string]*Param{
		"string":       {Type: &Type{Kind: KindString}},
		"bool":         {Type: &Type{Kind: KindBool}},
		"string, max":  {Type: &Type{Kind: KindString}, MaxLength: &one},
		"string, min":  {Type: &Type{Kind: KindString}, MinLength: &one},
		"string, enum": {Type: &Type{Kind: KindString}, Enum: []cty.Value{cty.StringVal("a")}},
		"bool, enum":   {Type: &Type{Kind: KindBool}, Enum: []cty.Value{cty.True}},
		"number":       {Type: &Type{Kind: KindNumber}},
	}
	values := map[string]cty.Value{
		"string":       cty.StringVal("ab"),
		"empty string": cty.StringVal(""),
		"true":         cty.True,
		"false":        cty.False,
		"null string":  cty.NullVal(cty.String),
		"null bool":    cty.NullVal(cty.Bool),
		"number":       cty.NumberIntVal(3),
		"infinite":     cty.PositiveInfinity,
	}
	for pn, p := range params {
		for vn, v := range values {
			t.Run(pn+"/"+vn, func(t *testing.T) {
				_, want := p.conform(v)
				if got := p.Check(v); got != want {
					t.Errorf("Check = %q, conform = %q", got, want)
				}
			})
		}
	}
}
