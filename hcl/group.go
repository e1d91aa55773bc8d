package hcl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/internal/suggest"
)

// Group is a group block: some of a config's tools, resources (and
// resource templates) and prompts, served on their own path over HTTP
// (/mcp/NAME, /sse/NAME) and alone by serve --group NAME, with scopes that
// path requires on top of the server's.
type Group struct {
	Name        string
	Description string
	// Tools, Resources and Prompts name the members by their block labels;
	// Resources names resource and resource_template blocks alike.
	Tools     []string
	Resources []string
	Prompts   []string
	// Scopes are required of every request on the group's path.
	Scopes []string
	// ranges are the member lists' attributes, for the diagnostics of
	// names that name nothing.
	ranges    map[string]*hcl.Attribute
	DeclRange hcl.Range
}

// groupBlockSchema is the schema of a group block.
var groupBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "description"},
		{Name: "tools"},
		{Name: "resources"},
		{Name: "prompts"},
		{Name: "scopes"},
	},
}

// maxGroupName is the longest group name: it is a path segment of every
// request to the group.
const maxGroupName = 64

// ValidGroupName reports whether name can be a group's: 1 to 64 letters,
// digits, '_', '-' or '.', and not "." or "..", so that /mcp/NAME is one
// path segment that needs no escaping.
func ValidGroupName(name string) bool {
	if name == "." || name == ".." {
		return false
	}
	return validToolName(name, true, maxGroupName)
}

// decodeGroup decodes a group block; its member names are checked once
// every block is decoded (Config.checkGroups).
func decodeGroup(block *hcl.Block, ctx *hcl.EvalContext) (*Group, hcl.Diagnostics) {
	content, diags := block.Body.Content(groupBlockSchema)
	explainUnsupported(diags, groupBlockSchema)
	g := &Group{Name: block.Labels[0], DeclRange: block.DefRange, ranges: content.Attributes}
	if !ValidGroupName(g.Name) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid group name",
			Detail: fmt.Sprintf("The group name %q cannot be a path segment: a group is served at /mcp/NAME. "+
				"Use 1 to %d letters, digits, '_', '-' or '.', as in group \"ops\" { ... }.", g.Name, maxGroupName),
			Subject: block.LabelRanges[0].Ptr(),
		})
	}
	diags = append(diags, stringAttr(content.Attributes, "description", ctx, &g.Description)...)
	diags = append(diags, stringListAttr(content.Attributes, "tools", ctx, &g.Tools)...)
	diags = append(diags, stringListAttr(content.Attributes, "resources", ctx, &g.Resources)...)
	diags = append(diags, stringListAttr(content.Attributes, "prompts", ctx, &g.Prompts)...)
	diags = append(diags, scopesAttr(content.Attributes, ctx, &g.Scopes)...)
	if content.Attributes["tools"] == nil && content.Attributes["resources"] == nil && content.Attributes["prompts"] == nil {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Empty group",
			Detail:   fmt.Sprintf("The group %q has no members, so its path serves nothing. List them, as in tools = [\"restart_service\"], resources = [...], prompts = [...].", g.Name),
			Subject:  block.DefRange.Ptr(),
		})
	}
	return g, diags
}

// scopesAttr decodes a scopes attribute: a list of constant OAuth scopes,
// each non-empty and of the characters RFC 6749 allows in a scope (no
// space, '"' or '\').
func scopesAttr(attrs hcl.Attributes, ctx *hcl.EvalContext, dst *[]string) hcl.Diagnostics {
	var scopes []string
	diags := stringListAttr(attrs, "scopes", ctx, &scopes)
	if diags.HasErrors() {
		return diags
	}
	for i, s := range scopes {
		if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r > '~' || r == '"' || r == '\\' }) {
			d := rangeDiag(attrs["scopes"], "Invalid scope",
				fmt.Sprintf("%q is not an OAuth scope: a scope is one word of printable ASCII characters other than '\"' and '\\', as in \"tools:ops\". Write one scope per list item.", s))
			if elems, _ := hcl.ExprList(attrs["scopes"].Expr); len(elems) == len(scopes) {
				d.Subject = elems[i].Range().Ptr() // the scope itself
			}
			return append(diags, d)
		}
	}
	*dst = scopes
	return diags
}

// checkGroups reports group members that name no block of their kind
// (with the closest name), groups declared twice, and scopes in a config
// without an auth block, which only callers with verified tokens have.
func (c *Config) checkGroups() hcl.Diagnostics {
	var diags hcl.Diagnostics
	var tools, resources, prompts []string
	for _, t := range c.Tools {
		tools = append(tools, t.Name)
	}
	for _, r := range c.Resources {
		resources = append(resources, r.Name)
	}
	for _, r := range c.ResourceTemplates {
		resources = append(resources, r.Name)
	}
	for _, p := range c.Prompts {
		prompts = append(prompts, p.Name)
	}
	seen := map[string]hcl.Range{}
	for _, g := range c.Groups {
		if prev, ok := seen[g.Name]; ok {
			diags = append(diags, duplicate("group", g.Name, g.DeclRange, prev, uniqueAcrossFiles))
			continue
		}
		seen[g.Name] = g.DeclRange
		for _, m := range []struct {
			attr, kind   string
			names, known []string
		}{{"tools", "tool", g.Tools, tools}, {"resources", "resource or resource_template", g.Resources, resources}, {"prompts", "prompt", g.Prompts, prompts}} {
			if len(m.names) == 0 {
				continue
			}
			elems, _ := hcl.ExprList(g.ranges[m.attr].Expr)
			for i, n := range m.names {
				if !slices.Contains(m.known, n) {
					d := rangeDiag(g.ranges[m.attr], "Unknown group member",
						fmt.Sprintf("The group %q lists %q in %s, but no %s block has that name.%s Name a declared %s, or remove it from the list.", g.Name, n, m.attr, m.kind, suggest.Hint(n, m.known), m.kind))
					if len(elems) == len(m.names) {
						d.Subject = elems[i].Range().Ptr() // the name itself
					}
					diags = append(diags, d)
				}
			}
		}
	}
	if c.Server == nil || c.Server.Auth == nil {
		if r := c.firstScopes(); r != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Scopes without auth",
				Detail: "Scopes are granted by verified tokens, and this config has no auth block in its server block: over HTTP, what has scopes is hidden from every caller and refused, " +
					"and a group with scopes answers 403 on its path. stdio has no caller and serves everything. Add server { auth { ... } } to let callers in by their tokens' scopes.",
				Subject: r.Ptr(),
			})
		}
	}
	return diags
}

// firstScopes returns the range of the first block with scopes, or nil.
func (c *Config) firstScopes() *hcl.Range {
	if items := c.ScopedItems(); len(items) > 0 {
		return &items[0].DeclRange
	}
	for _, g := range c.Groups {
		if len(g.Scopes) > 0 {
			return &g.DeclRange
		}
	}
	return nil
}

// ScopedItem is a tool, resource, resource template or prompt with scopes.
type ScopedItem struct {
	// Kind is the block type: tool, resource, resource_template or prompt.
	Kind, Name string
	Scopes     []string
	DeclRange  hcl.Range
}

// ScopedItems returns the tools, resources, resource templates and
// prompts that have scopes, in that order and each in file order.
func (c *Config) ScopedItems() []ScopedItem {
	var items []ScopedItem
	add := func(kind, name string, scopes []string, r hcl.Range) {
		if len(scopes) > 0 {
			items = append(items, ScopedItem{kind, name, scopes, r})
		}
	}
	for _, t := range c.Tools {
		add("tool", t.Name, t.Scopes, t.DeclRange)
	}
	for _, r := range c.Resources {
		add("resource", r.Name, r.Scopes, r.DeclRange)
	}
	for _, r := range c.ResourceTemplates {
		add("resource_template", r.Name, r.Scopes, r.DeclRange)
	}
	for _, p := range c.Prompts {
		add("prompt", p.Name, p.Scopes, p.DeclRange)
	}
	return items
}

// GroupNames returns the names of the config's groups, in file order.
func (c *Config) GroupNames() []string {
	names := make([]string, 0, len(c.Groups))
	for _, g := range c.Groups {
		names = append(names, g.Name)
	}
	return names
}

// Group returns the group named name, or nil.
func (c *Config) Group(name string) *Group {
	for _, g := range c.Groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}
