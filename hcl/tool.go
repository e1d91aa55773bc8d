package hcl

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/suggest"
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
	// Task is the tool's task support (the tasks extension): "" (the
	// default) runs every call at once, TaskOptional runs the calls of a
	// client that supports tasks as tasks, TaskRequired refuses the calls
	// of clients that do not.
	Task string
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
	// only the JSON, which takes less memory than the values.)
	InputSchemaJSON  json.RawMessage
	OutputSchemaJSON json.RawMessage
	// Offline is what the tool does when toolhost runs offline:
	// OfflineExample or OfflineRun (see decodeOffline).
	Offline string
	// Headers are the arguments the input schema mirrors into request
	// headers (x-mcp-header), which the server checks against them.
	Headers []ParamHeader
	// Scopes are what a caller's token must grant to see and call the
	// tool over HTTP.
	Scopes []string
	// Claims are the claims of the caller's token the tool reads with
	// claim("NAME"), sorted; a call whose token lacks one is refused
	// before anything runs.
	Claims    []string
	claimUses []claimUse
	DeclRange hcl.Range
}

// toolCommonAttributes are the attributes of a tool block, whatever its
// backend.
var toolCommonAttributes = []hcl.AttributeSchema{
	{Name: "title"},
	{Name: "description"},
	{Name: "confirm"},
	{Name: "confirm_fallback"},
	{Name: "input_schema"},
	{Name: "offline"},
	{Name: "task"},
	{Name: "scopes"},
}

// The values of a tool's task attribute.
const (
	TaskOptional = "optional"
	TaskRequired = "required"
)

// toolCommonBlocks are the nested blocks of a tool block other than its
// backend.
var toolCommonBlocks = []hcl.BlockHeaderSchema{
	{Type: "annotations"},
	{Type: "param", LabelNames: []string{"name"}},
	{Type: "result"},
	{Type: "example", LabelNames: []string{"name"}},
	{Type: "icon"},
	{Type: "ask"},
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

// validToolName reports whether name follows the MCP guidance for tool
// names: 1 to 128 letters, digits, '_', '-' or '.'. With dot false, '.' is
// refused and max is the longest name allowed (what the Anthropic and
// OpenAI APIs accept: 64). A loop rather than a regular expression: a
// counted repetition such as {1,128} compiles to 128 copies of its class,
// a cost every start would pay.
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

// decodeTool decodes a tool block: its params, result, ask, icons,
// examples and annotations, then compiles its backend. static evaluates
// the attributes that must be constant; compile are the functions of
// expressions evaluated at call time (see CompileFunctions); baseDir is
// the config file's directory, for relative paths. The tool is returned
// even with errors, for the checks that follow.
func decodeTool(block *hcl.Block, static *hcl.EvalContext, compile map[string]function.Function, baseDir string, network netpolicy.Policy, sources map[string]*adapters.Source) (*Tool, hcl.Diagnostics) {
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
	diags = append(diags, scopesAttr(content.Attributes, static, &t.Scopes)...)

	nb, d := t.decodeBlocks(content.Blocks, static, baseDir)
	diags = append(diags, d...)
	diags = append(diags, uniqueHeaders(t.Params)...)
	if misspelt := misspeltLabels(block.Body, schema, "param", contentDiags); len(misspelt) > 0 {
		// Declared, as far as references go, but of no known type.
		nb.declared = append(nb.declared, misspelt...)
		nb.argErrs = true
	}
	if t.Annotations != nil && t.Title == "" {
		t.Title = t.Annotations.Title
	}

	if a, ok := content.Attributes["input_schema"]; ok {
		ri, d := decodeInputSchema(a, static)
		diags = append(diags, d...)
		nb.argErrs = nb.argErrs || d.HasErrors()
		t.RawInput = ri
		if len(nb.declared) > 0 {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "input_schema and param blocks",
				Detail:   "A tool's arguments are declared either by param blocks or by input_schema, not both. Move the parameters into the schema's properties, or remove input_schema.",
				Subject:  a.NameRange.Ptr(),
			})
		}
		if ri != nil {
			nb.declared = ri.Properties
		}
	}
	eval := t.compileEval(compile)
	diags = append(diags, t.decodeConfirm(content.Attributes, eval, static, nb.declared)...)
	diags = append(diags, t.decodeTask(content.Attributes, static)...)
	var answers []string
	if nb.ask != nil {
		a, d := decodeAsk(nb.ask, eval, static, nb.declared)
		diags = append(diags, d...)
		nb.argErrs = nb.argErrs || d.HasErrors()
		t.Ask = a
		for _, f := range a.Fields {
			answers = append(answers, f.Name)
		}
		eval = t.compileEval(compile) // now with "answer"
	}
	roots := t.refRoots(nb.declared, answers)
	if nb.result != nil {
		r, d := decodeResult(nb.result, eval, static, roots, !nb.argErrs, baseDir)
		diags = append(diags, d...)
		t.Result = r
	}

	diags = append(diags, t.checkBackendCount(block, nb.backends, contentDiags)...)
	diags = append(diags, t.compileBackend(&nb, eval, roots, baseDir, network, sources)...)
	diags = append(diags, choiceWarnings(t)...)
	t.backendDefaults()
	diags = append(diags, t.checkConfirmFallback(content.Attributes)...)
	diags = append(diags, t.decodeOffline(content.Attributes, static)...)
	if diags.HasErrors() {
		return t, diags
	}
	t.InputSchemaJSON = SchemaJSON(t.inputSchema())
	if t.RawInput != nil {
		t.InputSchemaJSON = t.RawInput.Schema
	}
	t.Headers = ParamHeaders(t.InputSchemaJSON)
	if out := t.OutputSchema(); out != nil {
		t.OutputSchemaJSON = SchemaJSON(out)
	}
	return t, diags
}

// toolBlocks are what decodeBlocks leaves of a tool block's nested blocks
// for decodeTool to decode once the arguments are known.
type toolBlocks struct {
	// backends are the blocks of no tool block type: the backend, or
	// several when the tool has more than one by mistake.
	backends []*hcl.Block
	// result and ask are the first result and ask blocks, or nil.
	result, ask *hcl.Block
	// declared are the declared params' names, even of params with errors.
	declared []string
	// argErrs is set when the arguments' types are not known for sure (a
	// param's type does not parse or its block has an unknown attribute,
	// or an input_schema or ask block has errors): expressions that use
	// them are then not type-checked, and the backend is not compiled, so
	// that one mistake is not reported again as others. Any other error (a
	// param's bad default or bound among them) leaves them checked: every
	// problem shows at once.
	argErrs bool
}

// decodeBlocks decodes a tool's annotations, param, icon and example
// blocks into t, and sorts out the blocks decoded later: the result, the
// ask block and the backends.
func (t *Tool) decodeBlocks(blocks hcl.Blocks, static *hcl.EvalContext, baseDir string) (toolBlocks, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var nb toolBlocks
	var annotations *hcl.Block
	paramRanges := map[string]hcl.Range{}
	for _, b := range blocks {
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
			nb.argErrs = nb.argErrs || !typed
			if prev, dup := paramRanges[b.Labels[0]]; dup {
				diags = append(diags, duplicate("param", b.Labels[0], b.DefRange, prev, uniqueIn("parameter", "a tool")))
				continue
			}
			paramRanges[b.Labels[0]] = b.DefRange
			nb.declared = append(nb.declared, b.Labels[0])
			if typed {
				// A param whose type is not known is declared (its
				// references are fine) but has no type to check them by.
				t.Params = append(t.Params, p)
			}
		case "result":
			if nb.result != nil {
				diags = append(diags, duplicate("result block", "", b.DefRange, nb.result.DefRange, oneIn("result", "A tool")))
				continue
			}
			nb.result = b
		case "ask":
			if nb.ask != nil {
				diags = append(diags, duplicate("ask block", "", b.DefRange, nb.ask.DefRange, oneIn("ask", "A tool")))
				continue
			}
			nb.ask = b
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
			nb.backends = append(nb.backends, b)
		}
	}
	return nb, diags
}

// checkBackendCount reports a tool with no backend block or more than one.
// A tool with none whose result needs no output gets noBackend. content
// are the tool block's content diagnostics: a misspelt block may be the
// backend, and so may an argument that is a backend's name (template =
// "...") or belongs in one (url or command written in the tool block):
// that mistake is already reported, and not again as a missing backend.
func (t *Tool) checkBackendCount(block *hcl.Block, backends []*hcl.Block, content hcl.Diagnostics) hcl.Diagnostics {
	unsupported := false
	for _, dg := range content {
		name, isBlock, ok := unsupportedName(dg)
		switch {
		case dg.Summary == "Unsupported block type":
			unsupported = true
		case ok && !isBlock && backendOfArgument(name) != "":
			unsupported = true
		case dg.Summary == "Unsupported argument" && strings.Contains(dg.Detail, "is a block, not an argument"):
			unsupported = true
		}
	}
	switch len(backends) {
	case 0:
		if unsupported {
			return nil // the misspelt block is already reported
		}
		if t.Result != nil && t.Result.fixed() {
			// Every item has its own data: nothing to run.
			t.BackendKind, t.Backend = "none", noBackend{}
			return nil
		}
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Missing backend block",
			Detail:   fmt.Sprintf("The tool %q has nothing to run. Add one backend block: %s. (A tool whose result block gives every content item its own data, such as image { file = \"logo.png\" }, needs none.)", t.Name, strings.Join(adapters.Names(), ", ")),
			Subject:  block.DefRange.Ptr(),
		}}
	case 1:
		return nil
	default:
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "More than one backend block",
			Detail:   fmt.Sprintf("A tool runs exactly one backend, but %q has %s block and %s block. Keep one of them, or split them into two tools.", t.Name, withArticle(backends[0].Type), withArticle(backends[1].Type)),
			Subject:  backends[1].DefRange.Ptr(),
		}}
	}
}

// compileBackend compiles the tool's first backend block with eval, and
// checks the references of the others. roots are the variables the
// backend may use.
func (t *Tool) compileBackend(nb *toolBlocks, eval *hcl.EvalContext, roots []refRoot, baseDir string, network netpolicy.Policy, sources map[string]*adapters.Source) hcl.Diagnostics {
	var diags hcl.Diagnostics
	// With more than one backend block, which one is meant is unknown: the
	// first is compiled all the same, and the others' references checked,
	// so that their mistakes show with the "More than one" error rather
	// than after it is fixed.
	for _, b := range nb.backends[min(1, len(nb.backends)):] {
		diags = append(diags, checkBodyRefsIn(b.Body, roots)...)
	}
	if len(nb.backends) == 0 {
		return diags
	}
	b := nb.backends[0]
	t.BackendKind = b.Type
	// References are checked against every declared param, even one
	// whose block has errors, so that all problems show at once.
	refDiags := checkBodyRefsIn(b.Body, roots)
	diags = append(diags, refDiags...)
	beval := eval
	if nb.argErrs || refDiags.HasErrors() {
		// The arguments' types are not known for sure, or the block
		// refers to names that are not declared: check the backend
		// with the arguments unknown, so that its own mistakes (a bad
		// method, url or timeout) show in the same run, without errors
		// that follow from the param's or the reference's.
		beval = &hcl.EvalContext{Functions: eval.Functions, Variables: map[string]cty.Value{"param": cty.DynamicVal, "answer": cty.DynamicVal}}
	}
	params := t.paramInfo()
	for _, n := range nb.declared { // declared, even with errors
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
		Sources:  sources,
	})
	// A reference already reported as undeclared is not reported
	// again by the backend, in its own words.
	diags = append(diags, withoutRepeats(misplacedInBackend(d, b.Type), refDiags)...)
	t.Backend = backend
	return diags
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

// decodeTask decodes task, the tool's task support.
func (t *Tool) decodeTask(attrs hcl.Attributes, static *hcl.EvalContext) hcl.Diagnostics {
	a, ok := attrs["task"]
	if !ok {
		return nil
	}
	diags := stringAttr(attrs, "task", static, &t.Task)
	if diags.HasErrors() {
		return diags
	}
	if t.Task != TaskOptional && t.Task != TaskRequired {
		detail := fmt.Sprintf("task says whether a call may run in the background as a task that the client polls: \"optional\" runs the calls of clients that support tasks as tasks (and the others at once), \"required\" refuses the calls of clients that do not support tasks. %q is neither; remove the attribute for a tool whose calls always run at once.", t.Task)
		detail += suggest.Hint(t.Task, []string{TaskOptional, TaskRequired})
		t.Task = ""
		diags = append(diags, rangeDiag(a, "Invalid task", detail))
	}
	return diags
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
					diags = append(diags, rangeDiag(a, "Invalid confirm", fmt.Sprintf("confirm is the question the user is asked before the tool runs, a string such as \"Delete ${param.path}?\"; this is %s.", attr.WantName(v.Type()))))
				}
			}
		}
	}
	t.ConfirmFallback = "deny"
	if a, ok := attrs["confirm_fallback"]; ok {
		diags = append(diags, stringAttr(attrs, "confirm_fallback", static, &t.ConfirmFallback)...)
		if t.ConfirmFallback != "deny" && t.ConfirmFallback != "allow" {
			detail := fmt.Sprintf("confirm_fallback says what happens when the client cannot ask the user: \"deny\" (the default) refuses the call, \"allow\" runs it. %q is neither.", t.ConfirmFallback)
			detail += suggest.Hint(t.ConfirmFallback, []string{"deny", "allow"})
			diags = append(diags, rangeDiag(a, "Invalid confirm_fallback", detail))
		}
	}
	return diags
}

// checkConfirmFallback refuses a confirm_fallback on a tool that asks no
// confirmation, once its backend may have given it one (backendDefaults).
func (t *Tool) checkConfirmFallback(attrs hcl.Attributes) hcl.Diagnostics {
	if a, ok := attrs["confirm_fallback"]; ok && t.Confirm == nil {
		return hcl.Diagnostics{rangeDiag(a, "confirm_fallback without confirm", "confirm_fallback only matters for a tool that asks for confirmation. Add confirm = \"...\" or remove confirm_fallback.")}
	}
	return nil
}

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

// paramInfo is what the backend compiler is told of each parameter.
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

// inputSchema builds the input schema of the tool's param blocks: an
// object of exactly the declared parameters.
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
	addChoices(s, t.Backend)
	return s
}

// noBackend is the backend of a tool whose result needs no output.
type noBackend struct{}

// Call returns an empty output: the result has all its data.
func (noBackend) Call(ctx context.Context, in *adapters.Input) (*adapters.Output, error) {
	return &adapters.Output{MIMEType: "text/plain"}, ctx.Err()
}

// Close does nothing: a noBackend holds nothing.
func (noBackend) Close() error { return nil }

// CallsOffline reports that a tool without a backend does no I/O.
func (noBackend) CallsOffline() bool { return true }

var (
	_ adapters.Backend       = noBackend{}
	_ adapters.OfflineCaller = noBackend{}
)

// stringable reports whether a value, known or not, can be converted to a
// string: its type is enough to tell.
func stringable(v cty.Value) bool {
	if v.Type() == cty.DynamicPseudoType || v.Type().Equals(cty.String) {
		return true
	}
	return convert.GetConversion(v.Type(), cty.String) != nil
}
