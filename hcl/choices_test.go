package hcl

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestSelectChoicesSchemaAndWarning checks that an http block's select
// choices are the items' enum of its parameter in the input schema, and
// that a result field reading one of them without optional = true is
// warned of.
func TestSelectChoicesSchemaAndWarning(t *testing.T) {
	src := `
tool "item" {
  param "fields" {
    type     = list(string)
    required = false
  }
  http {
    url = "https://api.example.com/item"
    select {
      param   = "fields"
      choices = ["name", "price"]
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
`
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
	if len(warned) != 1 || !strings.Contains(warned[0], `The result field "name" reads "name"`) {
		t.Errorf("warnings = %q, want one for the field name", warned)
	}
	schema := string(cfg.Tools[0].InputSchemaJSON)
	if !strings.Contains(schema, `"enum":["name","price"]`) {
		t.Errorf("input schema %s does not list the choices", schema)
	}
}

// TestSelectPathWarning checks that with a select block whose parameter
// is a gjson path, each result field that is not optional is warned of:
// the model may pick a part of the answer without it.
func TestSelectPathWarning(t *testing.T) {
	src := `
tool "item" {
  param "path" {
    type     = string
    required = false
  }
  http {
    url = "https://api.example.com/item"
    select {
      param = "path"
      gjson = true
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
`
	_, diags := loadString(t, src, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var warned []string
	for _, d := range diags {
		if d.Severity == hcl.DiagWarning {
			warned = append(warned, d.Detail)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], `The result field "name" is not optional, and the "path" argument`) {
		t.Errorf("warnings = %q, want one for the field name", warned)
	}
}
