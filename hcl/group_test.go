package hcl

import (
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestScopesAndGroups decodes scopes on each kind of block and group
// blocks, and checks each mistake's diagnostic, its place and its fix.
func TestScopesAndGroups(t *testing.T) {
	const decls = `
server {
  auth {
    issuer   = "https://login.example.com"
    audience = "https://tools.example.com/mcp"
  }
}
tool "restart_service" {
  scopes = ["ops:write"]
  template { text = "ok" }
}
tool "status" {
  template { text = "ok" }
}
resource "runbook" {
  uri    = "docs://runbook"
  scopes = ["ops:read"]
  template { text = "book" }
}
resource_template "logs" {
  uri_template = "logs:///{name}"
  scopes       = ["ops:read"]
  template { text = "log" }
}
prompt "triage" {
  scopes = ["ops:read"]
  message "user" { text = "triage" }
}
`
	tests := []struct {
		name     string
		src      string
		severity hcl.DiagnosticSeverity // of the one diagnostic expected; 0 for none
		summary  string
		detail   []string
		line     int // the diagnostic's line
		column   int // the diagnostic's column, when not 0
	}{
		{name: "valid", src: decls + `
group "ops" {
  description = "Operations"
  tools       = ["restart_service", "status"]
  resources   = ["runbook", "logs"]
  prompts     = ["triage"]
  scopes      = ["ops"]
}`},
		{name: "unknown tool", src: decls + `
group "ops" {
  tools = ["restart_servce"]
}`, severity: hcl.DiagError, summary: "Unknown group member", detail: []string{`"restart_servce" in tools`, `Did you mean "restart_service"?`}, line: 31, column: 12},
		{name: "unknown resource", src: decls + `
group "ops" {
  resources = ["runbok"]
}`, severity: hcl.DiagError, summary: "Unknown group member", detail: []string{`Did you mean "runbook"?`}, line: 31},
		{name: "tool named as prompt", src: decls + `
group "ops" {
  prompts = ["status"]
}`, severity: hcl.DiagError, summary: "Unknown group member", detail: []string{`no prompt block`}, line: 31},
		{name: "name not a path segment", src: decls + `
group "a/b" {
  tools = ["status"]
}`, severity: hcl.DiagError, summary: "Invalid group name", detail: []string{"/mcp/NAME"}, line: 30},
		{name: "dot dot", src: decls + `
group ".." {
  tools = ["status"]
}`, severity: hcl.DiagError, summary: "Invalid group name", line: 30},
		{name: "duplicate group", src: decls + `
group "ops" {
  tools = ["status"]
}
group "ops" {
  tools = ["status"]
}`, severity: hcl.DiagError, summary: "Duplicate group", line: 33},
		{name: "scope with a space", src: decls + `
tool "x" {
  scopes = ["ops write"]
  template { text = "ok" }
}`, severity: hcl.DiagError, summary: "Invalid scope", detail: []string{`"ops write"`}, line: 31, column: 13},
		{name: "empty scope", src: decls + `
prompt "p" {
  scopes = [""]
  message "user" { text = "x" }
}`, severity: hcl.DiagError, summary: "Invalid scope", line: 31},
		{name: "scopes not a list", src: decls + `
resource "r" {
  uri    = "docs://r"
  scopes = "ops"
  template { text = "x" }
}`, severity: hcl.DiagError, line: 32},
		{name: "empty group", src: decls + `
group "none" {
  description = "nothing"
}`, severity: hcl.DiagWarning, summary: "Empty group", line: 30},
		{name: "scopes without auth", src: `
tool "status" {
  template { text = "ok" }
}
tool "restart" {
  scopes = ["ops:write"]
  template { text = "ok" }
}`, severity: hcl.DiagWarning, summary: "Scopes without auth", detail: []string{"auth block", "stdio"}, line: 5},
		{name: "group scopes without auth", src: `
tool "status" {
  template { text = "ok" }
}
group "ops" {
  tools  = ["status"]
  scopes = ["ops"]
}`, severity: hcl.DiagWarning, summary: "Scopes without auth", line: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := loadString(t, tt.src, nil)
			if tt.severity == 0 {
				if len(diags) > 0 {
					t.Fatalf("diagnostics: %v", diags)
				}
				g := cfg.Group("ops")
				if g == nil || !slices.Equal(g.Tools, []string{"restart_service", "status"}) || !slices.Equal(g.Scopes, []string{"ops"}) || g.Description != "Operations" {
					t.Fatalf("group: %+v", g)
				}
				if !slices.Equal(cfg.Tools[0].Scopes, []string{"ops:write"}) || len(cfg.Tools[1].Scopes) != 0 ||
					!slices.Equal(cfg.Resources[0].Scopes, []string{"ops:read"}) || !slices.Equal(cfg.ResourceTemplates[0].Scopes, []string{"ops:read"}) ||
					!slices.Equal(cfg.Prompts[0].Scopes, []string{"ops:read"}) {
					t.Fatal("scopes not decoded")
				}
				return
			}
			if len(diags) != 1 {
				t.Fatalf("want one diagnostic, got %d: %v", len(diags), diags)
			}
			d := diags[0]
			if d.Severity != tt.severity || tt.summary != "" && d.Summary != tt.summary || d.Subject == nil || d.Subject.Start.Line != tt.line || tt.column != 0 && d.Subject.Start.Column != tt.column {
				t.Fatalf("got %v at %v, want %q at line %d", d, d.Subject, tt.summary, tt.line)
			}
			for _, s := range tt.detail {
				if !strings.Contains(d.Detail, s) {
					t.Errorf("detail %q lacks %q", d.Detail, s)
				}
			}
		})
	}
}
