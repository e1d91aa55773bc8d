package hcl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestSelectChoicesSchemaAndWarning checks that an http block's select
// choices are the items' enum of its parameter in the input schema, and
// that a result field that a select argument may leave out without
// optional = true is warned of: one reading a choice, or any with a gjson
// path.
func TestSelectChoicesSchemaAndWarning(t *testing.T) {
	tests := []struct {
		name, ty, selectBody, wantWarning, wantSchema string
	}{
		{"choices", "list(string)", `choices = ["name", "price"]`, `The result field "name" reads "name"`, `"enum":["name","price"]`},
		{"gjson", "string", `gjson = true`, `The result field "name" is not optional, and the "fields" argument`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(`
tool "item" {
  param "fields" {
    type     = %s
    required = false
  }
  http {
    url = "https://api.example.com/item"
    select {
      param = "fields"
      %s
    }
  }
  result {
    field "name" {
      path = "name"
      type = string
    }
    field "price" {
      path     = "price"
      type     = number
      optional = true
    }
  }
}
`, tc.ty, tc.selectBody)
			cfg, diags := loadString(t, src, nil)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			var warned []string
			for _, d := range diags {
				if d.Severity == hcl.DiagWarning {
					warned = append(warned, d.Detail)
				}
			}
			if len(warned) != 1 || !strings.Contains(warned[0], tc.wantWarning) {
				t.Errorf("warnings = %q, want one for the field name", warned)
			}
			if schema := string(cfg.Tools[0].InputSchemaJSON); !strings.Contains(schema, tc.wantSchema) {
				t.Errorf("input schema %s does not list the choices", schema)
			}
		})
	}
}
