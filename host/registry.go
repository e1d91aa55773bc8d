// Package host runs toolhost: it compiles a loaded config into a Registry of
// tools, resources and prompts, and serves it to MCP clients.
package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/files"
)

// Registry is one compiled config: the tools, resources and prompts it
// declares, ready to serve. A Registry does not change; a reload builds a
// new one and retires the old one with Close.
type Registry struct {
	Config    *thcl.Config
	Tools     []*mcp.Tool
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	Prompts   []*mcp.Prompt

	tools map[string]*thcl.Tool
	// hasTaskTools: some tool has task support (see withTaskSupport).
	hasTaskTools bool
	prompts      map[string]*thcl.Prompt
	resources    map[string]*thcl.Resource
	templates    []*templateDir
	functions    *hcl.EvalContext

	// placeholder is set on the registry served while no valid config
	// has loaded (PlaceholderRegistry).
	placeholder *placeholder

	// use counts calls running on this registry, so that a retired
	// registry is closed only when the last of them is done.
	useMu   sync.Mutex
	active  int
	retired bool
	// released is set once the registry let go of its config's backends
	// (see releaseOnce).
	released atomic.Bool

	// slots holds a token for each tool call whose backend runs
	// (max_concurrent_calls).
	slots chan struct{}

	// offline, when the registry was loaded offline, holds the examples
	// each tool that answers from them has (see prepareOffline); nil
	// otherwise.
	offline map[string][]offlineExample

	// acc is the registry's scopes and groups (see access).
	acc accessOnce

	// decls is the registry's tools by name (see declaredTools).
	decls registryDecls
	// defs maps its config's blocks, for Apply (see changesBetween).
	defs defsOnce
}

type templateDir struct {
	decl *thcl.ResourceTemplate
	dir  *files.Dir
}

// matches reports whether uri is of the template's form. The value of a
// simple {path} holds no "/": clients write it as %2F, and the SDK matches
// a URI with one against no such template, so resources/read could not
// read what a tool's result embedded or linked.
func (t *templateDir) matches(uri string) bool {
	v, ok := t.value(uri)
	return ok && (t.decl.Reserved || !strings.Contains(v, "/"))
}

// value is the part of uri the template's variable stands for, when uri
// has the template's prefix and suffix.
func (t *templateDir) value(uri string) (string, bool) {
	d := t.decl
	if !strings.HasPrefix(uri, d.Prefix) || !strings.HasSuffix(uri, d.Suffix) || len(uri) <= len(d.Prefix)+len(d.Suffix) {
		return "", false
	}
	return uri[len(d.Prefix) : len(uri)-len(d.Suffix)], true
}

// name is the value of the template's variable in uri, decoded; false
// when uri does not match the template, or its value is empty, holds an
// encoded separator or NUL (%2F, %5C, %00) or does not decode.
func (t *templateDir) name(uri string) (string, bool) {
	if !t.matches(uri) {
		return "", false
	}
	raw, _ := t.value(uri)
	lower := strings.ToLower(raw)
	if strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(lower, "%00") {
		return "", false
	}
	name, err := url.PathUnescape(raw)
	return name, err == nil
}

// Load reads and compiles the config at paths. validate and serve share it;
// it starts nothing: no request is sent, no command runs.
func Load(paths []string, opts *thcl.Options) (*Registry, hcl.Diagnostics) {
	tightenLoadGC(paths)
	return loadAfter(paths, opts, nil)
}

// loadAfter is Load for a reload: prev, when not nil, is the registry in
// service, whose config opts.Previous names; the definitions of the tools
// taken from it unchanged are its own (see compile).
func loadAfter(paths []string, opts *thcl.Options, prev *Registry) (*Registry, hcl.Diagnostics) {
	cfg, diags := thcl.Load(paths, opts)
	retainBackends(cfg)
	var lookup thcl.EnvLookup
	if opts != nil {
		lookup = opts.LookupEnv
	}
	if diags.HasErrors() {
		cfg.DropReuse()
		// Not servable, but the functions let CheckExamples run the
		// examples of the tools that have no errors.
		broken := &Registry{Config: cfg, functions: thcl.StaticEval(lookup)}
		broken.releaseOnce()
		return broken, sortDiagnostics(diags)
	}
	r, d := compile(cfg, lookup, prev)
	diags = append(diags, d...)
	if opts != nil && opts.Offline && !d.HasErrors() {
		diags = append(diags, r.prepareOffline()...)
	}
	return r, sortDiagnostics(diags)
}

// sortDiagnostics orders diagnostics by file, line and column, so that a
// user fixes them top to bottom (blocks are decoded in parallel and checks
// run in phases). Diagnostics without a place come first.
func sortDiagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		case a.Start.Line != b.Start.Line:
			return a.Start.Line < b.Start.Line
		}
		return a.Start.Column < b.Start.Column
	})
	return diags
}

// closeTools releases cfg's hold on its backends (see backendRefs), which
// closes those no other loaded config holds.
func closeTools(cfg *thcl.Config) {
	releaseBackends(cfg)
}

// compile builds the registry of cfg. A tool that prev (nil at a start)
// holds, the very same *thcl.Tool that the load took from prev's config,
// keeps prev's definition: the SDK holds that one already, and a reload
// neither builds nor compares it again.
func compile(cfg *thcl.Config, lookup thcl.EnvLookup, prev *Registry) (*Registry, hcl.Diagnostics) {
	r := &Registry{
		Config:    cfg,
		tools:     map[string]*thcl.Tool{},
		prompts:   map[string]*thcl.Prompt{},
		resources: map[string]*thcl.Resource{},
		functions: thcl.StaticEval(lookup),
	}
	slots := thcl.DefaultMaxConcurrentCalls
	if cfg.Server != nil && cfg.Server.MaxConcurrentCalls > 0 {
		slots = cfg.Server.MaxConcurrentCalls
	}
	r.slots = make(chan struct{}, slots)
	var diags hcl.Diagnostics
	prevDefs := prev.defsByTool()
	for _, t := range cfg.Tools {
		if def, ok := prevDefs[t]; ok {
			r.tools[t.Name] = t
			r.hasTaskTools = r.hasTaskTools || t.Task != ""
			r.Tools = append(r.Tools, def)
			continue
		}
		// The schemas go to the SDK as JSON rendered once: it then neither
		// re-encodes them for every tools/list nor on registration.
		def := &mcp.Tool{
			Name:        t.Name,
			Title:       t.Title,
			Description: t.Description,
			InputSchema: t.InputSchemaJSON,
		}
		if t.OutputSchemaJSON != nil {
			def.OutputSchema = t.OutputSchemaJSON
		}
		for _, ic := range t.Icons {
			def.Icons = append(def.Icons, mcp.Icon{Source: ic.Src, MIMEType: ic.MIMEType, Sizes: ic.Sizes, Theme: mcp.IconTheme(ic.Theme)})
		}
		if a := t.Annotations; a != nil {
			def.Annotations = &mcp.ToolAnnotations{
				Title:           a.Title,
				ReadOnlyHint:    a.ReadOnlyHint,
				DestructiveHint: a.DestructiveHint,
				IdempotentHint:  a.IdempotentHint,
				OpenWorldHint:   a.OpenWorldHint,
			}
		}
		// The SDK panics on a schema it cannot use; check here so that a
		// bad schema is a diagnostic, never a crash.
		if err := checkSchemas(def); err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid schema",
				Detail:   fmt.Sprintf("The schema compiled for tool %q is not usable: %s.", t.Name, err),
				Subject:  t.DeclRange.Ptr(),
			})
			continue
		}
		r.tools[t.Name] = t
		r.hasTaskTools = r.hasTaskTools || t.Task != ""
		r.Tools = append(r.Tools, def)
	}
	for _, res := range cfg.Resources {
		r.resources[res.URI] = res
		mt := res.MIMEType
		if mt == "" && res.File != "" {
			// What a read gives, when the name tells (resources/list
			// reads no file).
			mt = files.MIMEByName(res.File)
		}
		r.Resources = append(r.Resources, &mcp.Resource{
			URI:         res.URI,
			Name:        res.Name,
			Title:       res.Title,
			Description: res.Description,
			MIMEType:    mt,
		})
	}
	for _, rt := range cfg.ResourceTemplates {
		var dir *files.Dir
		var err error
		if rt.Backend == nil {
			dir, err = files.OpenDir(rt.Dir)
		}
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Cannot open directory",
				Detail:   fmt.Sprintf("The directory of resource template %q cannot be opened: %s.", rt.Name, err),
				Subject:  rt.DeclRange.Ptr(),
			})
			continue
		}
		r.templates = append(r.templates, &templateDir{decl: rt, dir: dir})
		r.Templates = append(r.Templates, &mcp.ResourceTemplate{
			URITemplate: rt.URITemplate,
			Name:        rt.Name,
			Title:       rt.Title,
			Description: rt.Description,
			MIMEType:    rt.MIMEType,
		})
	}
	for _, p := range cfg.Prompts {
		r.prompts[p.Name] = p
		def := &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Args {
			def.Arguments = append(def.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		r.Prompts = append(r.Prompts, def)
	}
	return r, diags
}

// defsByTool maps each compiled tool of r (nil-safe) to its definition.
func (r *Registry) defsByTool() map[*thcl.Tool]*mcp.Tool {
	if r == nil || len(r.tools) == 0 {
		return nil
	}
	defs := make(map[*thcl.Tool]*mcp.Tool, len(r.Tools))
	for _, def := range r.Tools {
		if t, ok := r.tools[def.Name]; ok {
			defs[t] = def
		}
	}
	return defs
}

// checkSchemas checks what Server.AddTool would otherwise panic on: an input
// schema that is not an object schema. The compiler builds the schemas
// itself, so this guards against a compiler bug rather than a config
// mistake.
func checkSchemas(t *mcp.Tool) error {
	in, ok := t.InputSchema.(json.RawMessage)
	if !ok {
		return errors.New("the input schema must be an object schema")
	}
	// A schema the SDK cannot decode makes AddTool panic: check it here so
	// that it is a diagnostic, never a crash (and validate sees it too).
	if !json.Valid(in) {
		return errors.New("the input schema is not valid JSON")
	}
	if !bytes.HasPrefix(in, []byte(`{"type":"object"`)) { // compiled schemas start so
		var probe struct {
			Type any `json:"type"`
		}
		if json.Unmarshal(in, &probe) != nil || probe.Type != "object" {
			return errors.New("the input schema must be an object schema")
		}
	}
	if out, ok := t.OutputSchema.(json.RawMessage); ok && !json.Valid(out) {
		return errors.New("the output schema is not valid JSON")
	}
	return nil
}

// acquire marks a call as running on r. It reports false when r is retired:
// the caller takes the registry in service instead.
func (r *Registry) acquire() bool {
	r.useMu.Lock()
	defer r.useMu.Unlock()
	if r.retired {
		return false
	}
	r.active++
	return true
}

func (r *Registry) release() {
	r.useMu.Lock()
	r.active--
	done := r.retired && r.active == 0
	r.useMu.Unlock()
	if done {
		_ = r.Close()
	}
}

// Retire takes r out of service: no new call starts on it, and it is closed
// as soon as the calls running on it are done.
func (r *Registry) Retire() {
	r.useMu.Lock()
	already := r.retired
	r.retired = true
	idle := r.active == 0
	r.useMu.Unlock()
	if !already && idle {
		_ = r.Close()
	}
}

// Close releases what the registry holds: backends release their resources
// and directories are closed. Use Retire for a registry that may be in use.
func (r *Registry) Close() error {
	r.releaseOnce()
	for _, t := range r.templates {
		if t.dir != nil {
			_ = t.dir.Close()
		}
	}
	return nil
}

// Tool returns the compiled tool named name.
func (r *Registry) Tool(name string) (*thcl.Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}
