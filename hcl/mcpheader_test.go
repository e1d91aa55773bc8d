package hcl

import (
	"reflect"
	"sort"
	"testing"
)

// TestToolHeaders checks the arguments a tool's Headers lists, for param
// blocks and for an input_schema, nested properties included.
func TestToolHeaders(t *testing.T) {
	cases := []struct {
		name, src string
		want      []ParamHeader
	}{
		{"params", `
tool "t" {
  param "tenant" {
    header = "Tenant-Id"
  }
  param "dry_run" {
    type   = bool
    header = "Dry.Run"
  }
  param "query" {}
  template {
    text = "x"
  }
}`, []ParamHeader{{Path: []string{"dry_run"}, Name: "Dry.Run"}, {Path: []string{"tenant"}, Name: "Tenant-Id"}}},
		{"no headers", `
tool "t" {
  param "query" {
    type = string
  }
  template {
    text = "x"
  }
}`, nil},
		{"input_schema", `
tool "t" {
  input_schema = {
    type = "object"
    properties = {
      tenant = { type = "string", "x-mcp-header" = "Tenant" }
      target = {
        type       = "object"
        properties = { zone = { type = "integer", "x-mcp-header" = "Zone" } }
      }
    }
  }
  template {
    text = "x"
  }
}`, []ParamHeader{{Path: []string{"target", "zone"}, Name: "Zone"}, {Path: []string{"tenant"}, Name: "Tenant"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, diags := loadString(t, c.src, nil)
			if diags.HasErrors() {
				t.Fatal(FormatDiagnostics(diags))
			}
			got := cfg.Tools[0].Headers
			sort.Slice(got, func(i, j int) bool { return got[i].Arg() < got[j].Arg() })
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Headers = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestParamHeaderNames checks Header and Arg, which messages use.
func TestParamHeaderNames(t *testing.T) {
	h := ParamHeader{Path: []string{"target", "zone"}, Name: "Zone"}
	if h.Header() != "Mcp-Param-Zone" || h.Arg() != "target.zone" {
		t.Errorf("Header() = %q, Arg() = %q", h.Header(), h.Arg())
	}
}
