package hcl

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Resource is a resource block: one file served under a fixed URI.
type Resource struct {
	Name        string
	URI         string
	Title       string
	Description string
	MIMEType    string
	// File is the path of the served file, made absolute against the
	// config file's directory.
	File      string
	URIRange  hcl.Range
	DeclRange hcl.Range
}

// ResourceTemplate is a resource_template block: the files of a directory
// served under a URI template with one variable.
type ResourceTemplate struct {
	Name        string
	URITemplate string
	Title       string
	Description string
	MIMEType    string
	// Dir is the served directory, made absolute against the config file's
	// directory.
	Dir string
	// Prefix and Suffix surround the single variable in URITemplate; a URI
	// matches when it starts with Prefix and ends with Suffix.
	Prefix, Suffix string
	// Variable is the name of the template's variable.
	Variable  string
	DeclRange hcl.Range
}

var resourceBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "uri", Required: true},
		{Name: "title"},
		{Name: "description"},
		{Name: "mime_type"},
		{Name: "file", Required: true},
	},
}

var resourceTemplateBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "uri_template", Required: true},
		{Name: "title"},
		{Name: "description"},
		{Name: "mime_type"},
		{Name: "dir", Required: true},
	},
}

func decodeResource(block *hcl.Block, ctx *hcl.EvalContext, baseDir string) (*Resource, hcl.Diagnostics) {
	content, diags := block.Body.Content(resourceBlockSchema)
	r := &Resource{Name: block.Labels[0], DeclRange: block.DefRange}
	attrs := content.Attributes
	diags = append(diags, stringAttr(attrs, "uri", ctx, &r.URI)...)
	diags = append(diags, stringAttr(attrs, "title", ctx, &r.Title)...)
	diags = append(diags, stringAttr(attrs, "description", ctx, &r.Description)...)
	diags = append(diags, stringAttr(attrs, "mime_type", ctx, &r.MIMEType)...)
	diags = append(diags, stringAttr(attrs, "file", ctx, &r.File)...)
	if diags.HasErrors() {
		return nil, diags
	}
	r.URIRange = attrs["uri"].Expr.Range()
	if u, err := url.Parse(r.URI); err != nil || u.Scheme == "" {
		diags = append(diags, rangeDiag(attrs["uri"], "Invalid resource URI", fmt.Sprintf("%q is not an absolute URI. A resource URI has a scheme, as in file:///reports/q4.md or docs://handbook.", r.URI)))
	}
	r.File = resolvePath(baseDir, r.File)
	diags = append(diags, checkPath(attrs["file"], r.File, false)...)
	return r, diags
}

func decodeResourceTemplate(block *hcl.Block, ctx *hcl.EvalContext, baseDir string) (*ResourceTemplate, hcl.Diagnostics) {
	content, diags := block.Body.Content(resourceTemplateBlockSchema)
	r := &ResourceTemplate{Name: block.Labels[0], DeclRange: block.DefRange}
	attrs := content.Attributes
	diags = append(diags, stringAttr(attrs, "uri_template", ctx, &r.URITemplate)...)
	diags = append(diags, stringAttr(attrs, "title", ctx, &r.Title)...)
	diags = append(diags, stringAttr(attrs, "description", ctx, &r.Description)...)
	diags = append(diags, stringAttr(attrs, "mime_type", ctx, &r.MIMEType)...)
	diags = append(diags, stringAttr(attrs, "dir", ctx, &r.Dir)...)
	if diags.HasErrors() {
		return nil, diags
	}
	open := strings.Index(r.URITemplate, "{")
	closing := strings.Index(r.URITemplate, "}")
	if open < 0 || closing < open || strings.Count(r.URITemplate, "{") != 1 || strings.Count(r.URITemplate, "}") != 1 {
		diags = append(diags, rangeDiag(attrs["uri_template"], "Invalid URI template", fmt.Sprintf("%q must have exactly one variable in braces, as in notes:///{path}; the variable stands for a file's path inside dir.", r.URITemplate)))
		return nil, diags
	}
	r.Prefix, r.Suffix = r.URITemplate[:open], r.URITemplate[closing+1:]
	r.Variable = strings.TrimLeft(r.URITemplate[open+1:closing], "+/")
	if !hclsyntax.ValidIdentifier(r.Variable) {
		diags = append(diags, rangeDiag(attrs["uri_template"], "Invalid URI template", fmt.Sprintf("%q needs a variable name in the braces, as in notes:///{path}.", r.URITemplate)))
		return nil, diags
	}
	if !strings.Contains(r.Prefix, ":") {
		diags = append(diags, rangeDiag(attrs["uri_template"], "Invalid URI template", fmt.Sprintf("%q has no scheme before the variable. Start it with a scheme, as in notes:///{path}.", r.URITemplate)))
	}
	r.Dir = resolvePath(baseDir, r.Dir)
	diags = append(diags, checkPath(attrs["dir"], r.Dir, true)...)
	return r, diags
}

// resolvePath makes p absolute against the config file's directory.
func resolvePath(baseDir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(baseDir, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// checkPath reports a file or directory that does not exist, or is of the
// other kind.
func checkPath(attr *hcl.Attribute, p string, wantDir bool) hcl.Diagnostics {
	info, err := os.Stat(p)
	kind := "file"
	if wantDir {
		kind = "directory"
	}
	switch {
	case err != nil:
		return hcl.Diagnostics{rangeDiag(attr, "Missing "+kind, fmt.Sprintf("There is no %s at %s. Paths are relative to the config file's directory; create it or correct the path.", kind, p))}
	case info.IsDir() != wantDir:
		return hcl.Diagnostics{rangeDiag(attr, "Not a "+kind, fmt.Sprintf("%s is not a %s.", p, kind))}
	}
	return nil
}
