package hcl

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/regular"
)

// Tool is a tool block: an MCP tool and the backend that runs it.
type Tool struct {
	Name        string
	Title       string
	Description string
	Annotations *Annotations
	// Params are the declared parameters, in declaration order.
	Params []*Param
	// Result maps the backend's output to structured content; nil means the
	// output is returned as text.
	Result *Result
	// Confirm, when set, is a string expression: the question the user is
	// asked (through elicitation) before each call runs.
	Confirm hcl.Expression
	// ConfirmFallback is what happens when the client cannot ask the user:
	// "deny" (the default) refuses the call, "allow" runs it.
	ConfirmFallback string
	// RawInput, when set, is the tool's input_schema, written by hand in
	// place of param blocks.
	RawInput *RawInput
	// Ask, when set, is a form the user fills in before each call; the
	// answers are the variable "answer".
	Ask *Ask
	// Icons are the tool's icons, for clients to show.
	Icons []*Icon
	// Examples are the tool's example blocks: arguments, a recorded
	// response and the expected result, which validate checks offline.
	Examples []*Example
	// BackendKind is the backend block's type ("http", "exec", "template").
	BackendKind string
	// Backend is the compiled backend.
	Backend adapters.Backend
	// InputSchemaJSON and OutputSchemaJSON are the schemas clients see,
	// rendered once at load; OutputSchemaJSON is nil without result fields.
	// (InputSchema and OutputSchema rebuild them as values; a tool keeps
	// only the JSON, which is a third of the memory.)
	InputSchemaJSON  json.RawMessage
	OutputSchemaJSON json.RawMessage
	DeclRange        hcl.Range
}

// Icon is an icon block: an image a client may show for the tool.
type Icon struct {
	// Src is an https URL or a data: URI (from file).
	Src      string
	MIMEType string
	Sizes    []string
	Theme    string
	// File is the path of the file the data: URI was read from at load,
	// "" for an icon given by src; FileSum is the SHA-256 of what was
	// read. A reload watches the file and compares it with FileSum.
	File      string
	FileSum   [32]byte
	DeclRange hcl.Range
}

// Annotations are the MCP tool annotations: hints for clients.
type Annotations struct {
	Title           string
	ReadOnlyHint    bool
	DestructiveHint *bool
	IdempotentHint  bool
	OpenWorldHint   *bool
}

// Param is a param block: one argument of a tool.
type Param struct {
	Name        string
	Type        *Type
	Title       string
	Description string
	// Default is cty.NilVal when the parameter has no default.
	Default cty.Value
	// Required is true for parameters with no default, unless required =
	// false.
	Required             bool
	Enum                 []cty.Value
	Minimum, Maximum     *float64
	MinLength, MaxLength *int
	MinItems, MaxItems   *int
	Pattern              *Pattern
	// Choices are the values a multi-select field of an ask block offers
	// (each element of its list is one of them).
	Choices    []cty.Value
	AllowFlags bool
	Sensitive  bool
	DeclRange  hcl.Range
}

// Result is a result block: named fields extracted from the backend's
// output with gjson paths.
type Result struct {
	Fields []*Field
	// Content are the result's content blocks, in order: the items of the
	// result's content, after the JSON text of the fields when there are
	// fields.
	Content   []*Content
	DeclRange hcl.Range
}

// Field is one field of a result block.
type Field struct {
	Name        string
	Description string
	// Path is a string expression (it may interpolate params) that evaluates
	// to a gjson path over the backend's JSON output.
	Path     hcl.Expression
	Type     *Type
	Optional bool
	// DeclRange is the field block's header, for messages.
	DeclRange hcl.Range
}

var toolCommonAttributes = []hcl.AttributeSchema{
	{Name: "title"},
	{Name: "description"},
	{Name: "confirm"},
	{Name: "confirm_fallback"},
	{Name: "input_schema"},
}

var toolCommonBlocks = []hcl.BlockHeaderSchema{
	{Type: "annotations"},
	{Type: "param", LabelNames: []string{"name"}},
	{Type: "result"},
	{Type: "example", LabelNames: []string{"name"}},
	{Type: "icon"},
	{Type: "ask"},
}

var iconBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "src"},
		{Name: "file"},
		{Name: "mime_type"},
		{Name: "sizes"},
		{Name: "theme"},
	},
}

// toolBlockSchema is the schema of a tool block: the common attributes and
// blocks, plus one block type for each registered backend kind.
func toolBlockSchema() *hcl.BodySchema {
	s := &hcl.BodySchema{Attributes: toolCommonAttributes, Blocks: append([]hcl.BlockHeaderSchema(nil), toolCommonBlocks...)}
	for _, name := range adapters.Names() {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: name})
	}
	return s
}

var annotationsBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "title"},
		{Name: "read_only_hint"},
		{Name: "destructive_hint"},
		{Name: "idempotent_hint"},
		{Name: "open_world_hint"},
	},
}

var paramBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"},
		{Name: "title"},
		{Name: "description"},
		{Name: "default"},
		{Name: "required"},
		{Name: "enum"},
		{Name: "minimum"},
		{Name: "maximum"},
		{Name: "min_length"},
		{Name: "max_length"},
		{Name: "min_items"},
		{Name: "max_items"},
		{Name: "pattern"},
		{Name: "allow_flags"},
		{Name: "sensitive"},
	},
}

var resultBlockSchema = &hcl.BodySchema{
	Blocks: append([]hcl.BlockHeaderSchema{{Type: "field", LabelNames: []string{"name"}}}, contentBlockTypes...),
}

var fieldBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true},
		{Name: "type"},
		{Name: "description"},
		{Name: "optional"},
	},
}

// validToolName reports whether name follows the MCP guidance for tool
// names: 1 to 128 letters, digits, '_', '-' or '.'. With dot false, '.' is
// refused and max is the longest name allowed (what the Anthropic and
// OpenAI APIs accept: 64). A loop rather than a regular expression: a
// counted repetition such as {1,128} compiles to 128 copies of its class,
// which cost a tenth of a millisecond at every start.
func validToolName(name string, dot bool, max int) bool {
	if len(name) == 0 || len(name) > max {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		case c == '.' && dot:
		default:
			return false
		}
	}
	return true
}

// compile are the functions of expressions evaluated at call time (see
// CompileFunctions).
func decodeTool(block *hcl.Block, static *hcl.EvalContext, compile map[string]function.Function, baseDir string, network netpolicy.Policy) (*Tool, hcl.Diagnostics) {
	t := &Tool{Name: block.Labels[0], DeclRange: block.DefRange}
	var diags hcl.Diagnostics
	if !validToolName(t.Name, true, 128) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid tool name",
			Detail:   fmt.Sprintf("The tool name %q is not allowed: MCP tool names are 1 to 128 letters, digits, '_', '-' or '.'. Rename the tool, for example to %q.", t.Name, sanitizeName(t.Name)),
			Subject:  block.LabelRanges[0].Ptr(),
		})
	}
	schema := toolBlockSchema()
	content, d := block.Body.Content(schema)
	explainUnsupported(d, schema)
	diags = append(diags, d...)
	contentDiags := d
	diags = append(diags, stringAttr(content.Attributes, "title", static, &t.Title)...)
	diags = append(diags, stringAttr(content.Attributes, "description", static, &t.Description)...)

	var backends []*hcl.Block
	var result, ask, annotations *hcl.Block
	// argErrs is set when the arguments' types are not known for sure (a
	// param's type does not parse or its block has an unknown attribute,
	// or an input_schema or ask block has errors): expressions that use
	// them are then not type-checked, and the backend is not compiled, so
	// that one mistake is not reported again as others. Any other error (a
	// param's bad default or bound among them) leaves them checked: every
	// problem shows at once.
	argErrs := false
	var declaredParams []string
	paramRanges := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		switch b.Type {
		case "annotations":
			if t.Annotations != nil {
				diags = append(diags, duplicate("annotations block", "", b.DefRange, annotations.DefRange, oneIn("annotations", "A tool")))
				continue
			}
			annotations = b
			a, d := decodeAnnotations(b, static)
			diags = append(diags, d...)
			t.Annotations = a
		case "param":
			p, d, typed := decodeParam(b, static)
			diags = append(diags, d...)
			// A param whose type is known still types the backend's
			// expressions, whatever else is wrong with it (a bad
			// default, say): those are checked too.
			argErrs = argErrs || !typed
			if prev, dup := paramRanges[b.Labels[0]]; dup {
				diags = append(diags, duplicate("param", b.Labels[0], b.DefRange, prev, uniqueIn("parameter", "a tool")))
				continue
			}
			paramRanges[b.Labels[0]] = b.DefRange
			declaredParams = append(declaredParams, b.Labels[0])
			if typed {
				// A param whose type is not known is declared (its
				// references are fine) but has no type to check them by.
				t.Params = append(t.Params, p)
			}
		case "result":
			if result != nil {
				diags = append(diags, duplicate("result block", "", b.DefRange, result.DefRange, oneIn("result", "A tool")))
				continue
			}
			result = b
		case "ask":
			if ask != nil {
				diags = append(diags, duplicate("ask block", "", b.DefRange, ask.DefRange, oneIn("ask", "A tool")))
				continue
			}
			ask = b
		case "icon":
			ic, d := decodeIcon(b, static, baseDir)
			diags = append(diags, d...)
			if ic != nil {
				t.Icons = append(t.Icons, ic)
			}
		case "example":
			ex, d := decodeExample(b, baseDir, t.Examples)
			diags = append(diags, d...)
			if ex != nil {
				t.Examples = append(t.Examples, ex)
			}
		default:
			backends = append(backends, b)
		}
	}
	if misspelt := misspeltLabels(block.Body, schema, "param", contentDiags); len(misspelt) > 0 {
		// Declared, as far as references go, but of no known type.
		declaredParams = append(declaredParams, misspelt...)
		argErrs = true
	}
	if t.Annotations != nil && t.Title == "" {
		t.Title = t.Annotations.Title
	}

	if a, ok := content.Attributes["input_schema"]; ok {
		ri, d := decodeInputSchema(a, static)
		diags = append(diags, d...)
		argErrs = argErrs || d.HasErrors()
		t.RawInput = ri
		if len(declaredParams) > 0 {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "input_schema and param blocks",
				Detail:   "A tool's arguments are declared either by param blocks or by input_schema, not both. Move the parameters into the schema's properties, or remove input_schema.",
				Subject:  a.NameRange.Ptr(),
			})
		}
		if ri != nil {
			declaredParams = ri.Properties
		}
	}
	eval := t.compileEval(compile)
	diags = append(diags, t.decodeConfirm(content.Attributes, eval, static, declaredParams)...)
	var answers []string
	if ask != nil {
		a, d := decodeAsk(ask, eval, static, declaredParams)
		diags = append(diags, d...)
		argErrs = argErrs || d.HasErrors()
		t.Ask = a
		for _, f := range a.Fields {
			answers = append(answers, f.Name)
		}
		eval = t.compileEval(compile) // now with "answer"
	}
	if result != nil {
		r, d := decodeResult(result, eval, static, t.refRoots(declaredParams, answers), !argErrs, baseDir)
		diags = append(diags, d...)
		t.Result = r
	}

	// A misspelt block may be the backend, and so may an argument that
	// is a backend's name (template = "...") or belongs in one (url or
	// command written in the tool block): that mistake is reported, and
	// not again as a missing backend.
	unsupported := false
	for _, dg := range contentDiags {
		name, block, ok := unsupportedName(dg)
		switch {
		case dg.Summary == "Unsupported block type":
			unsupported = true
		case ok && !block && backendOfArgument(name) != "":
			unsupported = true
		case dg.Summary == "Unsupported argument" && strings.Contains(dg.Detail, "is a block, not an argument"):
			unsupported = true
		}
	}
	switch len(backends) {
	case 0:
		if unsupported {
			break // the misspelt block is already reported
		}
		if t.Result != nil && t.Result.fixed() {
			// Every item has its own data: nothing to run.
			t.BackendKind, t.Backend = "none", noBackend{}
			break
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing backend block",
			Detail:   fmt.Sprintf("The tool %q has nothing to run. Add one backend block: %s. (A tool whose result block gives every content item its own data, such as image { file = \"logo.png\" }, needs none.)", t.Name, strings.Join(adapters.Names(), ", ")),
			Subject:  block.DefRange.Ptr(),
		})
	case 1:
	default:
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "More than one backend block",
			Detail:   fmt.Sprintf("A tool runs exactly one backend, but %q has %s block and %s block. Keep one of them, or split them into two tools.", t.Name, withArticle(backends[0].Type), withArticle(backends[1].Type)),
			Subject:  backends[1].DefRange.Ptr(),
		})
	}
	// With more than one backend block, which one is meant is unknown: the
	// first is compiled all the same, and the others' references checked,
	// so that their mistakes show with the "More than one" error rather
	// than after it is fixed.
	for _, b := range backends[min(1, len(backends)):] {
		diags = append(diags, checkBodyRefsIn(b.Body, t.refRoots(declaredParams, answers))...)
	}
	if len(backends) > 0 {
		b := backends[0]
		t.BackendKind = b.Type
		// References are checked against every declared param, even one
		// whose block has errors, so that all problems show at once.
		refDiags := checkBodyRefsIn(b.Body, t.refRoots(declaredParams, answers))
		diags = append(diags, refDiags...)
		beval := eval
		if argErrs || refDiags.HasErrors() {
			// The arguments' types are not known for sure, or the block
			// refers to names that are not declared: check the backend
			// with the arguments unknown, so that its own mistakes (a bad
			// method, url or timeout) show in the same run, without errors
			// that follow from the param's or the reference's.
			beval = &hcl.EvalContext{Functions: eval.Functions, Variables: map[string]cty.Value{"param": cty.DynamicVal, "answer": cty.DynamicVal}}
		}
		params := t.paramInfo()
		for _, n := range declaredParams { // declared, even with errors
			if _, ok := params[n]; !ok {
				params[n] = adapters.ParamInfo{}
			}
		}
		kind, _ := adapters.Lookup(b.Type)
		backend, d := kind.Compile(b, &adapters.CompileContext{
			BaseDir:  baseDir,
			Eval:     beval,
			ToolName: t.Name,
			Params:   params,
			Network:  network,
		})
		// A reference already reported as undeclared is not reported
		// again by the backend, in its own words.
		diags = append(diags, withoutRepeats(misplacedInBackend(d, b.Type), refDiags)...)
		t.Backend = backend
	}
	if diags.HasErrors() {
		return t, diags
	}
	t.InputSchemaJSON = SchemaJSON(t.inputSchema())
	if t.RawInput != nil {
		t.InputSchemaJSON = t.RawInput.Schema
	}
	if out := t.OutputSchema(); out != nil {
		t.OutputSchemaJSON = SchemaJSON(out)
	}
	return t, diags
}

// misplacedInBackend adds to HCL's "Unsupported argument" and "Unsupported
// block type" of a backend block, when what is not expected there belongs
// in the tool block (a param block, a description), where it goes.
func misplacedInBackend(diags hcl.Diagnostics, backend string) hcl.Diagnostics {
	for _, d := range diags {
		var what string
		switch d.Summary {
		case "Unsupported argument":
			what = "argument"
		case "Unsupported block type":
			what = "block"
		default:
			continue
		}
		_, rest, ok := strings.Cut(d.Detail, `"`)
		name, _, ok2 := strings.Cut(rest, `"`)
		if !ok || !ok2 {
			continue
		}
		belongs := false
		if what == "argument" {
			belongs = slices.ContainsFunc(toolCommonAttributes, func(a hcl.AttributeSchema) bool { return a.Name == name })
		} else {
			belongs = slices.ContainsFunc(toolCommonBlocks, func(b hcl.BlockHeaderSchema) bool { return b.Type == name })
		}
		if belongs && !strings.Contains(d.Detail, "belongs in the tool block") {
			d.Detail += fmt.Sprintf(" The %s %s belongs in the tool block, beside the %s block: move it out of %s { ... }.", name, what, backend, backend)
		}
	}
	return diags
}

// refRoots are the variables a tool's backend and result may use: param,
// and answer (as a whole too) when the tool asks the user a form.
func (t *Tool) refRoots(params, answers []string) []refRoot {
	roots := []refRoot{{root: "param", names: params}}
	if t.Ask != nil {
		roots = append(roots, refRoot{root: "answer", names: answers, whole: true})
	}
	return roots
}

// decodeConfirm decodes confirm and confirm_fallback.
func (t *Tool) decodeConfirm(attrs hcl.Attributes, eval, static *hcl.EvalContext, names []string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if a, ok := attrs["confirm"]; ok {
		t.Confirm = a.Expr
		refs := checkExprRefs(a.Expr, "param", names)
		diags = append(diags, refs...)
		if !refs.HasErrors() {
			v, d := a.Expr.Value(eval)
			diags = append(diags, d...)
			if !d.HasErrors() && !stringable(v) {
				{
					diags = append(diags, rangeDiag(a, "Invalid confirm", fmt.Sprintf("confirm is the question the user is asked before the tool runs, a string such as \"Delete ${param.path}?\"; this is %s.", friendlyCtyType(v.Type()))))
				}
			}
		}
	}
	t.ConfirmFallback = "deny"
	if a, ok := attrs["confirm_fallback"]; ok {
		diags = append(diags, stringAttr(attrs, "confirm_fallback", static, &t.ConfirmFallback)...)
		if t.ConfirmFallback != "deny" && t.ConfirmFallback != "allow" {
			detail := fmt.Sprintf("confirm_fallback says what happens when the client cannot ask the user: \"deny\" (the default) refuses the call, \"allow\" runs it. %q is neither.", t.ConfirmFallback)
			if s := suggest(t.ConfirmFallback, []string{"deny", "allow"}); s != "" {
				detail += fmt.Sprintf(" Did you mean %q?", s)
			}
			diags = append(diags, rangeDiag(a, "Invalid confirm_fallback", detail))
		}
		if t.Confirm == nil {
			diags = append(diags, rangeDiag(a, "confirm_fallback without confirm", "confirm_fallback only matters for a tool that asks for confirmation. Add confirm = \"...\" or remove confirm_fallback."))
		}
	}
	return diags
}

// decodeIcon decodes an icon block. An icon is an https URL (src) or a
// file next to the config (file), sent as a data: URI.
func decodeIcon(b *hcl.Block, static *hcl.EvalContext, baseDir string) (*Icon, hcl.Diagnostics) {
	content, diags := b.Body.Content(iconBlockSchema)
	ic := &Icon{DeclRange: b.DefRange}
	attrs := content.Attributes
	diags = append(diags, stringAttr(attrs, "src", static, &ic.Src)...)
	diags = append(diags, stringAttr(attrs, "mime_type", static, &ic.MIMEType)...)
	diags = append(diags, stringAttr(attrs, "theme", static, &ic.Theme)...)
	if a, ok := attrs["sizes"]; ok {
		v, d := constant(a, static, cty.List(cty.String))
		diags = append(diags, d...)
		if !d.HasErrors() && !v.IsNull() {
			for _, e := range v.AsValueSlice() {
				ic.Sizes = append(ic.Sizes, e.AsString())
			}
		}
	}
	var file string
	diags = append(diags, stringAttr(attrs, "file", static, &file)...)
	_, hasSrc := attrs["src"]
	_, hasFile := attrs["file"]
	switch {
	case hasSrc == hasFile:
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Icon needs src or file",
			Detail:   "An icon block has either src = \"https://...\" (a URL clients fetch) or file = \"icon.png\" (a file next to the config, sent inline). Keep one of them.",
			Subject:  b.DefRange.Ptr(),
		})
	case hasFile && file != "":
		p := resolvePath(baseDir, file)
		data, err := regular.ReadFile(p, maxIconSize, errIconTooLarge)
		var nr *regular.NotRegularError
		switch {
		case errors.As(err, &nr):
			diags = append(diags, rangeDiag(attrs["file"], "Icon not a regular file", notRegularDetail("icon file", nr)+" Give the path of an image file, relative to the config file's directory."))
		case err == errIconTooLarge:
			diags = append(diags, rangeDiag(attrs["file"], "Icon too large", fmt.Sprintf("The icon file %s is larger than %d KiB; icons are sent inline with every tools/list, so keep them under that, or serve it and use src.", p, maxIconSize>>10)))
		case err != nil:
			d := rangeDiag(attrs["file"], "Missing file", fmt.Sprintf("The icon file %s cannot be read: %v. Paths are relative to the config file's directory.", p, unwrapPathError(err)))
			if errors.Is(err, fs.ErrNotExist) {
				d.Extra = MissingPath{Path: p}
			}
			diags = append(diags, d)
		default:
			if ic.MIMEType == "" {
				ic.MIMEType = mediaTypeByExt(p)
			}
			if ic.MIMEType == "" {
				ic.MIMEType, _, _ = mime.ParseMediaType(http.DetectContentType(data))
			}
			ic.Src = "data:" + ic.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(data)
			ic.File, ic.FileSum = p, sha256.Sum256(data)
		}
	case hasSrc && ic.Src != "":
		u, err := url.Parse(ic.Src)
		if err != nil || (u.Scheme != "https" && u.Scheme != "data") {
			diags = append(diags, rangeDiag(attrs["src"], "Invalid icon src", fmt.Sprintf("%q is not an https URL or a data: URI. Clients fetch icons only over https; for a local file, use file = \"icon.png\".", ic.Src)))
		}
	}
	if ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark" {
		diags = append(diags, rangeDiag(attrs["theme"], "Invalid theme", fmt.Sprintf("theme is \"light\" (for light backgrounds) or \"dark\"; %q is neither.", ic.Theme)))
	}
	return ic, diags
}

// maxIconSize caps an icon file sent inline.
const maxIconSize = 64 << 10

// errIconTooLarge says an icon file is larger than maxIconSize.
var errIconTooLarge = errors.New("icon file too large")

// InputSchema builds the tool's input schema: what InputSchemaJSON holds,
// as a value.
func (t *Tool) InputSchema() *jsonschema.Schema {
	if t.RawInput != nil {
		var s jsonschema.Schema
		_ = json.Unmarshal(t.RawInput.Schema, &s)
		return &s
	}
	return t.inputSchema()
}

// OutputSchema builds the tool's output schema from its result fields; nil
// when the tool has none.
func (t *Tool) OutputSchema() *jsonschema.Schema {
	if t.Result == nil || len(t.Result.Fields) == 0 {
		return nil
	}
	return t.Result.schema()
}

func (t *Tool) paramNames() []string {
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	return names
}

func (t *Tool) paramInfo() map[string]adapters.ParamInfo {
	m := make(map[string]adapters.ParamInfo, len(t.Params))
	if t.RawInput != nil {
		for _, name := range t.RawInput.Properties {
			m[name] = adapters.ParamInfo{}
		}
	}
	for _, p := range t.Params {
		m[p.Name] = adapters.ParamInfo{AllowFlags: p.AllowFlags, Sensitive: p.Sensitive, Optional: !p.Required && p.Default == cty.NilVal}
	}
	return m
}

// ParamsType is the object type of the "param" variable.
func (t *Tool) ParamsType() cty.Type {
	attrs := make(map[string]cty.Type, len(t.Params))
	for _, p := range t.Params {
		attrs[p.Name] = p.Type.Cty()
	}
	return cty.Object(attrs)
}

// compileEval is the compile-time context: the functions, and "param" as an
// unknown value of the parameters' type.
func (t *Tool) compileEval(functions map[string]function.Function) *hcl.EvalContext {
	vars := map[string]cty.Value{"param": cty.UnknownVal(t.ParamsType())}
	if t.RawInput != nil {
		vars["param"] = cty.DynamicVal // its type is the arguments'
	}
	if t.Ask != nil {
		vars["answer"] = cty.UnknownVal(t.Ask.AnswersType())
	}
	return &hcl.EvalContext{Functions: functions, Variables: vars}
}

func (t *Tool) inputSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:                 "object",
		Properties:           make(map[string]*jsonschema.Schema, len(t.Params)),
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	for _, p := range t.Params {
		s.Properties[p.Name] = p.schema()
		s.PropertyOrder = append(s.PropertyOrder, p.Name)
		if p.Required {
			s.Required = append(s.Required, p.Name)
		}
	}
	return s
}

func (p *Param) schema() *jsonschema.Schema {
	s := p.Type.Schema(true)
	s.Title = p.Title
	s.Description = p.Description
	// A sensitive parameter's default (often read with env()) never goes
	// into the schema a model and a client see.
	if p.Default != cty.NilVal && !p.Sensitive {
		s.Default = EncodeJSON(p.Type, p.Default)
	}
	for _, e := range p.Enum {
		var v any
		_ = json.Unmarshal(EncodeJSON(p.Type, e), &v)
		s.Enum = append(s.Enum, v)
	}
	s.Minimum, s.Maximum = p.Minimum, p.Maximum
	s.MinLength, s.MaxLength = p.MinLength, p.MaxLength
	// A tuple's own size bounds stay unless the param narrows them.
	if p.MinItems != nil {
		s.MinItems = p.MinItems
	}
	if p.MaxItems != nil {
		s.MaxItems = p.MaxItems
	}
	if p.Pattern != nil {
		s.Pattern = p.Pattern.String()
	}
	return s
}

func decodeAnnotations(block *hcl.Block, ctx *hcl.EvalContext) (*Annotations, hcl.Diagnostics) {
	content, diags := block.Body.Content(annotationsBlockSchema)
	a := &Annotations{}
	diags = append(diags, stringAttr(content.Attributes, "title", ctx, &a.Title)...)
	diags = append(diags, boolAttr(content.Attributes, "read_only_hint", ctx, &a.ReadOnlyHint)...)
	diags = append(diags, boolPtrAttr(content.Attributes, "destructive_hint", ctx, &a.DestructiveHint)...)
	diags = append(diags, boolAttr(content.Attributes, "idempotent_hint", ctx, &a.IdempotentHint)...)
	diags = append(diags, boolPtrAttr(content.Attributes, "open_world_hint", ctx, &a.OpenWorldHint)...)
	return a, diags
}

// decodeParam decodes a param block (or an ask block's field). It returns
// the parameter even when the block has errors, with typed true when its
// type is known for sure all the same (the block has no unknown attribute,
// which may be a misspelt type, and its type, if any, parses): the tool's
// backend and result are then checked with it, so that a bad default or
// bound does not hide their mistakes.
func decodeParam(block *hcl.Block, ctx *hcl.EvalContext) (p *Param, diags hcl.Diagnostics, typed bool) {
	p = &Param{Name: block.Labels[0], DeclRange: block.DefRange, Type: &Type{Kind: KindString}}
	content, diags := block.Body.Content(paramBlockSchema)
	explainUnsupported(diags, paramBlockSchema)
	typed = !diags.HasErrors()
	if !hclsyntax.ValidIdentifier(p.Name) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid parameter name",
			Detail:   fmt.Sprintf("%q cannot be used as param.%s in expressions. A parameter name starts with a letter and has only letters, digits, '_' and '-'; try %q.", p.Name, p.Name, sanitizeName(p.Name)),
			Subject:  block.LabelRanges[0].Ptr(),
		})
	}
	attrs := content.Attributes
	typeOK := true
	if a, ok := attrs["type"]; ok {
		t, d := ParseType(a.Expr)
		diags = append(diags, d...)
		typeOK = !d.HasErrors() && t != nil
		typed = typed && typeOK
		if t != nil {
			p.Type = t
		}
	}
	diags = append(diags, stringAttr(attrs, "title", ctx, &p.Title)...)
	diags = append(diags, stringAttr(attrs, "description", ctx, &p.Description)...)
	diags = append(diags, boolAttr(attrs, "allow_flags", ctx, &p.AllowFlags)...)
	diags = append(diags, boolAttr(attrs, "sensitive", ctx, &p.Sensitive)...)
	diags = append(diags, numberAttr(attrs, "minimum", ctx, &p.Minimum)...)
	diags = append(diags, numberAttr(attrs, "maximum", ctx, &p.Maximum)...)
	diags = append(diags, countAttr(attrs, "min_length", ctx, &p.MinLength)...)
	diags = append(diags, countAttr(attrs, "max_length", ctx, &p.MaxLength)...)
	diags = append(diags, countAttr(attrs, "min_items", ctx, &p.MinItems)...)
	diags = append(diags, countAttr(attrs, "max_items", ctx, &p.MaxItems)...)
	if !typeOK {
		// Without its type nothing else of the param can be checked.
		p.Required = true
		return p, diags, typed
	}
	// The checks below go on after an error above, so that a config's
	// problems show at once: a constraint that did not decode is nil, and
	// an attribute with an error is not checked again.
	kind := p.Type.Kind
	isNumber := kind == KindNumber || kind == KindInteger
	isCollection := kind == KindList || kind == KindSet || kind == KindTuple
	wrongType := func(attr, wants string) {
		if overlapsError(diags, attrs[attr].Range) {
			return
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Constraint does not fit the type",
			Detail:   fmt.Sprintf("%s applies to %s parameters, but %q is of type %s. Remove %s or change the type.", attr, wants, p.Name, p.Type, attr),
			Subject:  attrs[attr].NameRange.Ptr(),
		})
	}
	if (p.Minimum != nil || p.Maximum != nil) && !isNumber {
		for _, n := range []string{"minimum", "maximum"} {
			if _, ok := attrs[n]; ok {
				wrongType(n, "number and integer")
			}
		}
	}
	for _, n := range []string{"min_length", "max_length", "pattern"} {
		if _, ok := attrs[n]; ok && kind != KindString {
			wrongType(n, "string")
		}
	}
	for _, n := range []string{"min_items", "max_items"} {
		if _, ok := attrs[n]; ok && !isCollection {
			wrongType(n, "list, set and tuple")
		}
	}
	if p.Minimum != nil && p.Maximum != nil && *p.Minimum > *p.Maximum {
		diags = append(diags, rangeDiag(attrs["minimum"], "minimum is greater than maximum", fmt.Sprintf("No value can be at least %v and at most %v. Swap or correct the bounds.", *p.Minimum, *p.Maximum)))
	}
	if p.MinLength != nil && p.MaxLength != nil && *p.MinLength > *p.MaxLength {
		diags = append(diags, rangeDiag(attrs["min_length"], "min_length is greater than max_length", "No string can satisfy both lengths. Swap or correct them."))
	}
	if a, ok := attrs["pattern"]; ok && kind == KindString {
		var src string
		diags = append(diags, stringAttr(attrs, "pattern", ctx, &src)...)
		pat, err := NewPattern(src)
		if err != nil {
			diags = append(diags, rangeDiag(a, "Invalid pattern", fmt.Sprintf("The pattern is not a valid regular expression: %s. Patterns use RE2 syntax (the common subset of ECMAScript that JSON Schema clients also understand).", err)))
		} else {
			p.Pattern = pat
		}
	}
	if a, ok := attrs["enum"]; ok {
		v, d := constant(a, ctx, cty.DynamicPseudoType)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if !v.CanIterateElements() || v.Type().IsMapType() || v.Type().IsObjectType() || v.LengthInt() == 0 {
				diags = append(diags, rangeDiag(a, "Invalid enum", "enum is a non-empty list of the allowed values, as in enum = [\"simple\", \"detailed\"]."))
			} else {
				var enum []cty.Value
				// A list written out points each bad value at itself.
				items, _ := a.Expr.(*hclsyntax.TupleConsExpr)
				if items != nil && len(items.Exprs) != v.LengthInt() {
					items = nil
				}
				for i, it := 0, v.ElementIterator(); it.Next(); i++ {
					_, ev := it.Element()
					cv, msg := p.conform(ev)
					if msg != "" {
						d := rangeDiag(a, "Invalid enum value", fmt.Sprintf("The enum value %s %s. Every enum value must be a valid value of the parameter.", ctyDisplay(ev), msg))
						if items != nil && v.Type().IsTupleType() {
							d.Subject = items.Exprs[i].Range().Ptr()
						}
						diags = append(diags, d)
						continue
					}
					enum = append(enum, cv)
				}
				p.Enum = enum
			}
		}
	}
	if a, ok := attrs["default"]; ok {
		v, d := constant(a, ctx, cty.DynamicPseudoType)
		diags = append(diags, d...)
		if !d.HasErrors() {
			cv, msg := p.conform(v)
			if msg != "" {
				shown := ctyDisplay(v)
				if p.Sensitive {
					shown = "(sensitive value)"
				}
				diags = append(diags, rangeDiag(a, "Invalid default", fmt.Sprintf("The default %s %s. Change the default, or the type or constraint it does not meet.", shown, msg)))
			} else {
				p.Default = cv
			}
		}
	}
	p.Required = p.Default == cty.NilVal
	if a, ok := attrs["required"]; ok {
		var req bool
		diags = append(diags, boolAttr(attrs, "required", ctx, &req)...)
		if req && p.Default != cty.NilVal {
			diags = append(diags, rangeDiag(a, "Required parameter with a default", fmt.Sprintf("%q has a default, so a caller never has to give it. Remove required = true, or remove the default.", p.Name)))
		}
		p.Required = req
	}
	return p, diags, typed
}

// Check checks a value already of the parameter's type against the
// parameter's constraints (bounds, lengths, pattern, enum). It returns a
// message such as "is not one of the enum values" when v does not fit, or "".
func (p *Param) Check(v cty.Value) string {
	_, msg := p.conform(v)
	return msg
}

// conform converts v to the parameter's type and checks it against the
// parameter's constraints. It returns a message such as "is not one of the
// enum values" when v does not fit.
func (p *Param) conform(v cty.Value) (cty.Value, string) {
	if !finiteNumbers(v) {
		return cty.NilVal, "has a number beyond what a 64-bit number holds (0, or a magnitude from 4.9e-324 to 1.8e308), which no client could read in the schema"
	}
	cv, err := convert.Convert(v, p.Type.Cty())
	if err != nil {
		return cty.NilVal, fmt.Sprintf("is not of type %s", p.Type)
	}
	if cv.IsNull() {
		return cty.NilVal, "is null"
	}
	if p.Type.Kind == KindInteger && !cv.AsBigFloat().IsInt() {
		return cty.NilVal, "is not a whole number"
	}
	if p.Type.Kind == KindNumber || p.Type.Kind == KindInteger {
		f, _ := cv.AsBigFloat().Float64()
		if p.Minimum != nil && f < *p.Minimum {
			return cty.NilVal, fmt.Sprintf("is less than the minimum %v", *p.Minimum)
		}
		if p.Maximum != nil && f > *p.Maximum {
			return cty.NilVal, fmt.Sprintf("is greater than the maximum %v", *p.Maximum)
		}
	}
	if p.Type.Kind == KindString {
		s := cv.AsString()
		n := len([]rune(s))
		if p.MinLength != nil && n < *p.MinLength {
			return cty.NilVal, fmt.Sprintf("is shorter than min_length %d", *p.MinLength)
		}
		if p.MaxLength != nil && n > *p.MaxLength {
			return cty.NilVal, fmt.Sprintf("is longer than max_length %d", *p.MaxLength)
		}
		if p.Pattern != nil && !p.Pattern.MatchString(s) {
			return cty.NilVal, fmt.Sprintf("does not match the pattern %s", p.Pattern)
		}
	}
	if (p.MinItems != nil || p.MaxItems != nil) && cv.CanIterateElements() {
		n := cv.LengthInt()
		if p.MinItems != nil && n < *p.MinItems {
			return cty.NilVal, fmt.Sprintf("has %d items, fewer than min_items %d", n, *p.MinItems)
		}
		if p.MaxItems != nil && n > *p.MaxItems {
			return cty.NilVal, fmt.Sprintf("has %d items, more than max_items %d", n, *p.MaxItems)
		}
	}
	if len(p.Enum) > 0 {
		found := false
		for _, e := range p.Enum {
			if e.Equals(cv).True() {
				found = true
				break
			}
		}
		if !found {
			return cty.NilVal, "is not one of the allowed values " + enumList(p.Enum)
		}
	}
	return cv, ""
}

func rangeDiag(a *hcl.Attribute, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: a.Expr.Range().Ptr()}
}

// ctyDisplay renders a known value as JSON for messages.
func ctyDisplay(v cty.Value) string {
	if v.ContainsMarked() {
		return "(sensitive value)"
	}
	if !v.IsWhollyKnown() {
		return "(unknown)"
	}
	if v.Type() == cty.Number && !v.IsNull() {
		return v.AsBigFloat().Text('g', 10)
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return "(a value that cannot be shown)"
	}
	if len(b) > 120 {
		return string(b[:100]) + "...(" + strconv.Itoa(len(b)) + " characters)"
	}
	return string(b)
}

// decodeResult decodes a result block. names are the declared params;
// typecheck is false when the params have errors, so their types are not
// known well enough to evaluate the paths.
// Constant attributes are evaluated with static.
func decodeResult(block *hcl.Block, eval, static *hcl.EvalContext, roots []refRoot, typecheck bool, baseDir string) (*Result, hcl.Diagnostics) {
	content, diags := block.Body.Content(resultBlockSchema)
	r := &Result{DeclRange: block.DefRange}
	seen := map[string]hcl.Range{}
	sc := &contentScope{roots: roots, eval: eval, static: static, baseDir: baseDir, output: true, where: "a result block"}
	if !typecheck {
		sc.eval = &hcl.EvalContext{Functions: eval.Functions, Variables: map[string]cty.Value{"param": cty.DynamicVal}}
	}
	for _, b := range content.Blocks {
		if b.Type != "field" {
			c, d := decodeContent(b, sc)
			diags = append(diags, d...)
			if c != nil {
				r.Content = append(r.Content, c)
			}
			continue
		}
		f := &Field{Name: b.Labels[0], DeclRange: b.DefRange, Type: &Type{Kind: KindAny}}
		if strings.TrimSpace(f.Name) == "" {
			// The structured result's key: a client shows it, a model
			// reads it, and "" names nothing.
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Empty field name",
				Detail:   `A field's name is its key in the structured result, so it cannot be empty or blank. Name the field, as in field "title" { path = "title" }.`,
				Subject:  b.LabelRanges[0].Ptr(),
			})
			continue
		}
		if prev, dup := seen[f.Name]; dup {
			diags = append(diags, duplicate("field", f.Name, b.DefRange, prev, uniqueIn("field", "a result block")))
			continue
		}
		seen[f.Name] = b.DefRange
		fc, d := b.Body.Content(fieldBlockSchema)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		f.Path = fc.Attributes["path"].Expr
		refDiags := checkRefs(f.Path.Variables(), roots)
		diags = append(diags, refDiags...)
		if !refDiags.HasErrors() && typecheck {
			v, d := f.Path.Value(eval)
			diags = append(diags, d...)
			if !d.HasErrors() {
				if _, err := convert.Convert(v, cty.String); err != nil {
					diags = append(diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Invalid path",
						Detail:   "path is a gjson path written as a string, such as \"data.#.title\".",
						Subject:  f.Path.Range().Ptr(),
					})
				}
			}
		}
		if a, ok := fc.Attributes["type"]; ok {
			t, d := ParseType(a.Expr)
			diags = append(diags, d...)
			if t != nil {
				f.Type = t
			}
		}
		diags = append(diags, stringAttr(fc.Attributes, "description", static, &f.Description)...)
		diags = append(diags, boolAttr(fc.Attributes, "optional", static, &f.Optional)...)
		r.Fields = append(r.Fields, f)
	}
	if len(content.Blocks) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Empty result block",
			Detail:   "A result block declares at least one field, as in field \"title\" { path = \"data.title\" }, or content item, as in image { file = \"logo.png\" }. Remove the block to return the output as text.",
			Subject:  block.DefRange.Ptr(),
		})
	}
	return r, diags
}

func (r *Result) schema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, f := range r.Fields {
		fs := f.Type.Schema(false)
		fs.Description = f.Description
		s.Properties[f.Name] = fs
		s.PropertyOrder = append(s.PropertyOrder, f.Name)
		if !f.Optional {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}

// IntegerValue reports whether v is a whole number, for integer types.
func IntegerValue(v cty.Value) bool {
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Number {
		return false
	}
	return v.AsBigFloat().IsInt() // beyond int64 too, as parameters take them
}

// sanitizeName turns s into a name that fits the naming rules, for hints.
func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	out := b.String()
	if out == "" || (out[0] >= '0' && out[0] <= '9') {
		out = "x" + out
	}
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}

func enumList(vals []cty.Value) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = ctyDisplay(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// fixed reports whether a result is only content items that each have data
// of their own (text, data, file or a resource's URI), so that it needs no
// backend output.
func (r *Result) fixed() bool {
	if len(r.Fields) > 0 || len(r.Content) == 0 {
		return false
	}
	for _, c := range r.Content {
		if c.Kind != ContentResource && c.Output || c.Path != nil {
			return false
		}
	}
	// A resource item without text or file is then a declared resource.
	for _, c := range r.Content {
		c.Output = false
	}
	return true
}

// noBackend is the backend of a tool whose result needs no output.
type noBackend struct{}

func (noBackend) Call(ctx context.Context, in *adapters.Input) (*adapters.Output, error) {
	return &adapters.Output{MIMEType: "text/plain"}, ctx.Err()
}

func (noBackend) Close() error { return nil }

var _ adapters.Backend = noBackend{}

// stringable reports whether a value, known or not, can be converted to a
// string: its type is enough to tell.
func stringable(v cty.Value) bool {
	if v.Type() == cty.DynamicPseudoType || v.Type().Equals(cty.String) {
		return true
	}
	return convert.GetConversion(v.Type(), cty.String) != nil
}

// finiteNumbers reports whether every number in v, however deep, is one a
// 64-bit float holds (JSON decoders, the SDK's among them, fail on others).
func finiteNumbers(v cty.Value) bool {
	ok := true
	_ = cty.Walk(v, func(_ cty.Path, e cty.Value) (bool, error) {
		e, _ = e.Unmark()
		if e.IsKnown() && !e.IsNull() && e.Type() == cty.Number {
			f, _ := e.AsBigFloat().Float64()
			if math.IsInf(f, 0) || (f == 0 && e.AsBigFloat().Sign() != 0) {
				ok = false
			}
		}
		return ok, nil
	})
	return ok
}
