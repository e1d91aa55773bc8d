package hcl

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/files"
	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/regular"
)

// Resource is a resource block: a file, or a backend's output, served
// under a fixed URI.
type Resource struct {
	Name        string
	URI         string
	Title       string
	Description string
	MIMEType    string
	// File is the path of the served file, made absolute against the
	// config file's directory. Empty when a backend serves the resource.
	File string
	// Backend, when set, produces the resource's content on every read
	// (an http, exec or template block); BackendKind is its block type.
	Backend     adapters.Backend
	BackendKind string
	URIRange    hcl.Range
	// Scopes are what a caller's token must grant to see and read the
	// resource over HTTP.
	Scopes    []string
	DeclRange hcl.Range
}

// ResourceTemplate is a resource_template block: the files of a
// directory, or a backend's output, served under a URI template with one
// variable.
type ResourceTemplate struct {
	Name        string
	URITemplate string
	Title       string
	Description string
	MIMEType    string
	// Dir is the served directory, made absolute against the config file's
	// directory. Empty when a backend serves the template.
	Dir string
	// Backend, when set, produces the content of each URI on read, with
	// the template's variable as param.NAME; BackendKind is its block type.
	Backend     adapters.Backend
	BackendKind string
	// Prefix and Suffix surround the single variable in URITemplate; a URI
	// matches when it starts with Prefix and ends with Suffix.
	Prefix, Suffix string
	// Variable is the name of the template's variable.
	Variable string
	// Reserved reports reserved expansion ({+path}): only then may the
	// variable's value hold a "/" that stays one in the URI; a simple
	// {path} or {/path} encodes it as %2F (RFC 6570), which reads refuse,
	// and clients match such a URI against the template only without it.
	Reserved bool
	// Completions are values offered to clients completing the variable;
	// without them, the names of the directory's files are offered.
	Completions []string
	// Scopes are what a caller's token must grant to see the template
	// and read its URIs over HTTP.
	Scopes    []string
	DeclRange hcl.Range
}

// resourceBlockSchema is the schema of a resource block, without its
// backend blocks (see withBackends).
var resourceBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "uri", Required: true},
		{Name: "title"},
		{Name: "description"},
		{Name: "mime_type"},
		{Name: "file"},
		{Name: "scopes"},
	},
}

// resourceTemplateBlockSchema is the schema of a resource_template block,
// without its backend blocks (see withBackends).
var resourceTemplateBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "uri_template", Required: true},
		{Name: "title"},
		{Name: "description"},
		{Name: "mime_type"},
		{Name: "dir"},
		{Name: "completions"},
		{Name: "scopes"},
	},
}

// withBackends adds a block type for each backend kind to a schema.
func withBackends(s *hcl.BodySchema) *hcl.BodySchema {
	out := &hcl.BodySchema{Attributes: s.Attributes}
	for _, name := range adapters.Names() {
		out.Blocks = append(out.Blocks, hcl.BlockHeaderSchema{Type: name})
	}
	return out
}

// resourceBackend compiles the backend block of a resource or resource
// template, if it has one. source is the attribute it replaces ("file" or
// "dir"); vars are the names of the template's variables, the backend's
// params. It reports a missing source, or two of them. varsKnown is false
// when the variables are not known (a resource template whose uri_template
// has a mistake): the backend's own mistakes are reported all the same, and
// its references are not checked.
func resourceBackend(block *hcl.Block, content *hcl.BodyContent, source string, vars []string, varsKnown bool, compile map[string]function.Function, baseDir string, network netpolicy.Policy) (adapters.Backend, string, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	_, hasSource := content.Attributes[source]
	kinds := strings.Join(adapters.Names(), ", ")
	switch {
	case len(content.Blocks) == 0 && !hasSource:
		return nil, "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Missing " + source,
			Detail:   fmt.Sprintf("A %s block serves a %s (%s = \"...\") or what a backend block returns (%s). Add one of them.", block.Type, map[string]string{"file": "file", "dir": "directory's files"}[source], source, kinds),
			Subject:  block.DefRange.Ptr(),
		}}
	case len(content.Blocks) > 0 && hasSource:
		return nil, "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Two sources",
			Detail:   fmt.Sprintf("This %s has both %s and %s block. Keep one of them.", block.Type, source, withArticle(content.Blocks[0].Type)),
			Subject:  content.Blocks[0].DefRange.Ptr(),
		}}
	case len(content.Blocks) > 1:
		return nil, "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "More than one backend block",
			Detail:   fmt.Sprintf("A %s has one backend block, and this one has %s block and %s block. Keep one of them.", block.Type, withArticle(content.Blocks[0].Type), withArticle(content.Blocks[1].Type)),
			Subject:  content.Blocks[1].DefRange.Ptr(),
		}}
	case len(content.Blocks) == 0:
		return nil, "", nil
	}
	b := content.Blocks[0]
	if !varsKnown {
		// Whatever the block refers to counts as declared: which names
		// are is not known.
		vars = referencedNames(b.Body, "param")
	}
	scope := refRoot{root: "param", names: vars}
	switch {
	case source == "file":
		scope.fix = func(name string) string {
			return "A resource has no parameters: its backend runs with none. Remove the reference, or make this a resource_template whose uri_template has the variable, as in \"status://{" + name + "}\"."
		}
	case varsKnown:
		scope.fix = func(string) string {
			return fmt.Sprintf("The only parameter of a resource template is the variable of its uri_template, {%s}: write param.%s, or rename the variable in uri_template.", vars[0], vars[0])
		}
	}
	refDiags := checkBodyRefsIn(b.Body, []refRoot{scope})
	diags = append(diags, refDiags...)
	attrs := make(map[string]cty.Type, len(vars))
	params := make(map[string]adapters.ParamInfo, len(vars))
	for _, v := range vars {
		attrs[v] = cty.String
		params[v] = adapters.ParamInfo{}
	}
	param := cty.UnknownVal(cty.Object(attrs))
	if refDiags.HasErrors() || !varsKnown {
		// Undeclared references are reported above; the backend is
		// checked with the variable unknown, so that its own mistakes
		// show in the same run.
		param = cty.DynamicVal
	}
	kind, _ := adapters.Lookup(b.Type)
	backend, d := kind.Compile(b, &adapters.CompileContext{
		BaseDir:  baseDir,
		Eval:     &hcl.EvalContext{Functions: compile, Variables: map[string]cty.Value{"param": param}},
		ToolName: block.Labels[0],
		Params:   params,
		Network:  network,
	})
	return backend, b.Type, append(diags, withoutRepeats(d, refDiags)...)
}

// decodeResource decodes a resource block: its content comes from a file
// or a backend.
func decodeResource(block *hcl.Block, ctx *hcl.EvalContext, compile map[string]function.Function, baseDir string, network netpolicy.Policy) (*Resource, hcl.Diagnostics) {
	content, diags := block.Body.Content(withBackends(resourceBlockSchema))
	r := &Resource{Name: block.Labels[0], DeclRange: block.DefRange}
	attrs := content.Attributes
	diags = append(diags, stringAttr(attrs, "uri", ctx, &r.URI)...)
	diags = append(diags, stringAttr(attrs, "title", ctx, &r.Title)...)
	diags = append(diags, stringAttr(attrs, "description", ctx, &r.Description)...)
	diags = append(diags, stringAttr(attrs, "mime_type", ctx, &r.MIMEType)...)
	diags = append(diags, stringAttr(attrs, "file", ctx, &r.File)...)
	diags = append(diags, scopesAttr(attrs, ctx, &r.Scopes)...)
	if diags.HasErrors() {
		return nil, diags
	}
	r.URIRange = attrs["uri"].Expr.Range()
	if u, err := url.Parse(r.URI); err != nil || u.Scheme == "" {
		diags = append(diags, rangeDiag(attrs["uri"], "Invalid resource URI", fmt.Sprintf("%q is not an absolute URI. A resource URI has a scheme, as in file:///reports/q4.md or docs://handbook.", r.URI)))
	}
	backend, kind, d := resourceBackend(block, content, "file", nil, true, compile, baseDir, network)
	diags = append(diags, d...)
	r.Backend, r.BackendKind = backend, kind
	if a, ok := attrs["file"]; ok && backend == nil && !d.HasErrors() {
		r.File = resolvePath(baseDir, r.File)
		diags = append(diags, checkPath(a, r.File, false)...)
	}
	return r, diags
}

// uriTemplateExprProblem says what is wrong with the expression in the
// braces of a uri_template, when it is not NAME, +NAME or /NAME: an RFC 6570
// operator or modifier toolhost does not serve is named as such, so that a
// template that has a variable is not told it needs one.
func uriTemplateExprProblem(template, expr string) string {
	const served = "write the variable as {NAME}, {+NAME} (a value that may hold \"/\") or {/NAME}, as in notes:///{path}"
	switch {
	case expr != "" && strings.ContainsRune("#.;?&=,!@|", rune(expr[0])):
		return fmt.Sprintf("%q uses the RFC 6570 operator %q, which toolhost does not serve; %s.", template, expr[:1], served)
	case strings.Contains(expr, ","):
		return fmt.Sprintf("%q must have exactly one variable in braces, as in notes:///{path}; the variable stands for a file's path inside dir, or for param.NAME in the backend block.", template)
	case strings.HasSuffix(expr, "*"):
		return fmt.Sprintf("%q uses the RFC 6570 modifier \"*\", which toolhost does not serve; %s.", template, served)
	case strings.Contains(expr, ":"):
		return fmt.Sprintf("%q uses the RFC 6570 modifier %q, which toolhost does not serve; %s.", template, expr[strings.Index(expr, ":"):], served)
	}
	return fmt.Sprintf("%q needs a variable name in the braces, as in notes:///{path}.", template)
}

// decodeResourceTemplate decodes a resource_template block: a URI template
// whose reads a directory's files or a backend serve.
func decodeResourceTemplate(block *hcl.Block, ctx *hcl.EvalContext, compile map[string]function.Function, baseDir string, network netpolicy.Policy) (*ResourceTemplate, hcl.Diagnostics) {
	content, diags := block.Body.Content(withBackends(resourceTemplateBlockSchema))
	for _, d := range diags {
		// A prompt arg's enum has no counterpart here: a template's
		// variable takes any value the backend accepts.
		if d.Summary == "Unsupported argument" && d.Subject != nil && strings.Contains(d.Detail, `named "enum"`) {
			d.Detail += ` A resource template's variable has no enum: list suggestions in completions = [...] (clients offer them as the user types), and check the value in the backend.`
		}
	}
	r := &ResourceTemplate{Name: block.Labels[0], DeclRange: block.DefRange}
	attrs := content.Attributes
	diags = append(diags, stringAttr(attrs, "uri_template", ctx, &r.URITemplate)...)
	diags = append(diags, stringAttr(attrs, "title", ctx, &r.Title)...)
	diags = append(diags, stringAttr(attrs, "description", ctx, &r.Description)...)
	diags = append(diags, stringAttr(attrs, "mime_type", ctx, &r.MIMEType)...)
	diags = append(diags, stringAttr(attrs, "dir", ctx, &r.Dir)...)
	diags = append(diags, stringListAttr(attrs, "completions", ctx, &r.Completions)...)
	diags = append(diags, scopesAttr(attrs, ctx, &r.Scopes)...)
	if diags.HasErrors() {
		return nil, diags
	}
	// A mistake in uri_template does not hide those of dir or the backend
	// block: every problem shows at once.
	valid := true
	open := strings.Index(r.URITemplate, "{")
	closing := strings.Index(r.URITemplate, "}")
	if open < 0 || closing < open || strings.Count(r.URITemplate, "{") != 1 || strings.Count(r.URITemplate, "}") != 1 {
		diags = append(diags, rangeDiag(attrs["uri_template"], "Invalid URI template", fmt.Sprintf("%q must have exactly one variable in braces, as in notes:///{path}; the variable stands for a file's path inside dir, or for param.NAME in the backend block.", r.URITemplate)))
		valid = false
	} else {
		r.Prefix, r.Suffix = r.URITemplate[:open], r.URITemplate[closing+1:]
		expr := r.URITemplate[open+1 : closing]
		r.Reserved = strings.HasPrefix(expr, "+")
		if strings.HasPrefix(expr, "/") {
			// Path-segment expansion, as in notes:{/path}: the URI has a
			// "/" before the value (notes:/a.md), which is not part of
			// the file's name.
			r.Prefix += "/"
		}
		r.Variable = strings.TrimLeft(expr, "+/")
		if !validIdentifier(r.Variable) {
			diags = append(diags, rangeDiag(attrs["uri_template"], "Invalid URI template", uriTemplateExprProblem(r.URITemplate, expr)))
			valid = false
		} else if !strings.Contains(r.Prefix, ":") {
			diags = append(diags, rangeDiag(attrs["uri_template"], "Invalid URI template", fmt.Sprintf("%q has no scheme before the variable. Start it with a scheme, as in notes:///{path}.", r.URITemplate)))
		}
	}
	var vars []string
	if valid {
		vars = []string{r.Variable}
	}
	backend, kind, d := resourceBackend(block, content, "dir", vars, valid, compile, baseDir, network)
	diags = append(diags, d...)
	r.Backend, r.BackendKind = backend, kind
	if a, ok := attrs["dir"]; ok && backend == nil && !d.HasErrors() {
		r.Dir = resolvePath(baseDir, r.Dir)
		diags = append(diags, checkPath(a, r.Dir, true)...)
	}
	if !valid {
		if backend != nil {
			_ = backend.Close()
		}
		return nil, diags
	}
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

// MissingPath is the Extra of an error about a file or directory the
// config names that does not exist (a resource's file, a template's dir,
// an icon): Path is its absolute path. Creating it fixes the config, so
// serve watches for it while the config has the error.
type MissingPath struct{ Path string }

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
		d := rangeDiag(attr, "Missing "+kind, fmt.Sprintf("There is no %s at %s. Paths are relative to the config file's directory; create it or correct the path.", kind, p))
		d.Extra = MissingPath{Path: p}
		return hcl.Diagnostics{d}
	case info.IsDir() != wantDir:
		return hcl.Diagnostics{rangeDiag(attr, "Not a "+kind, fmt.Sprintf("%s is not a %s.", p, kind))}
	case !wantDir && !info.Mode().IsRegular():
		return hcl.Diagnostics{rangeDiag(attr, "Not a regular file", fmt.Sprintf("%s is %s, not a regular file, so every read of it would fail: toolhost reads only regular files, which it can read without waiting (a FIFO would wait for a writer, a device may never end). Give the path of a regular file.", p, regular.Kind(info.Mode())))}
	case !wantDir && info.Size() > files.DefaultMaxSize:
		// A warning, as the file may be made smaller without a change to
		// the config; until then every read of it fails.
		d := rangeDiag(attr, "File over the size limit", fmt.Sprintf("%s is %s, and a file served is at most %s, so every read of it fails until it is smaller. "+
			"Use a smaller file, or split it into several.", p, sizeText(info.Size()), sizeText(files.DefaultMaxSize)))
		d.Severity = hcl.DiagWarning
		return hcl.Diagnostics{d}
	}
	return nil
}

// sizeText says a size in bytes, and in MiB too from 1 MiB.
func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d bytes (%s MiB)", n, strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0"))
}
