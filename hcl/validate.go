package hcl

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/suggest"
)

// lintTool runs the static checks on a decoded tool that go beyond decoding
// each attribute: env() of unset variables in what runs at call time
// (warnings), values that cannot be interpolated into a string, gjson paths
// that cannot match, and schemas that common clients reject (warnings).
// found are the diagnostics decoding already reported: a check stays quiet
// where one of them already points.
func lintTool(block *hcl.Block, t *Tool, static *hcl.EvalContext, lookup EnvLookup, found hcl.Diagnostics) hcl.Diagnostics {
	body, ok := block.Body.(*hclsyntax.Body)
	if !ok {
		return nil // JSON syntax: the decoders' checks are all there is
	}
	var callTime []hclsyntax.Node // expressions evaluated at call time
	var paramBlocks []*hclsyntax.Block
	for _, b := range body.Blocks {
		_, isBackend := adapters.Lookup(b.Type)
		switch {
		case isBackend:
			callTime = append(callTime, b.Body)
		case b.Type == "result":
			for _, fb := range b.Body.Blocks {
				if a, ok := fb.Body.Attributes["path"]; ok && fb.Type == "field" {
					callTime = append(callTime, a.Expr)
				}
				if isContentBlock(fb.Type) {
					callTime = append(callTime, fb.Body)
				}
			}
		case b.Type == "param":
			paramBlocks = append(paramBlocks, b)
		}
	}
	var diags hcl.Diagnostics
	quiet := func(r hcl.Range) bool { return overlapsError(found, r) }

	for _, n := range callTime {
		for _, u := range envWarnings(n, lookup, t.Name) {
			if errs := overlappingErrors(found, *u.diag.Subject); len(errs) > 0 {
				// The value had to be known at load, and is not: say why.
				note := fmt.Sprintf("It calls env(%q) with no default, and that variable is not set.", u.name)
				for _, e := range errs {
					if !strings.Contains(e.Detail, note) {
						e.Detail += " " + note
					}
				}
				continue
			}
			diags = append(diags, u.diag)
		}
	}
	eval := t.compileEval(static.Functions)
	for _, n := range callTime {
		for _, d := range interpolationErrors(n, eval) {
			if !quiet(*d.Subject) {
				diags = append(diags, d)
			}
		}
		for _, d := range unknownFunctions(n, static.Functions) {
			if !quiet(*d.Subject) && !overlapsError(diags, *d.Subject) {
				diags = append(diags, d)
			}
		}
	}
	if t.Result != nil {
		for _, f := range t.Result.Fields {
			if f.Path == nil || quiet(f.Path.Range()) {
				continue
			}
			if d := checkPathExpr(f.Path, fmt.Sprintf("field %q", f.Name), eval); d != nil {
				diags = append(diags, d)
			}
		}
		for _, c := range t.Result.Content {
			if c.Path == nil || quiet(c.Path.Range()) {
				continue
			}
			if d := checkPathExpr(c.Path, "the "+string(c.Kind)+" item", eval); d != nil {
				diags = append(diags, d)
			}
		}
	}
	declared := map[string]map[string]bool{"param": {}, "answer": {}}
	for _, p := range t.Params {
		declared["param"][p.Name] = true
	}
	if t.RawInput != nil {
		for _, name := range t.RawInput.Properties {
			declared["param"][name] = true
		}
	}
	if t.Ask != nil {
		if ty := t.Ask.AnswersType(); ty.IsObjectType() {
			for name := range ty.AttributeTypes() {
				declared["answer"][name] = true
			}
		}
	}
	for _, n := range callTime {
		diags = append(diags, uninterpolatedReferences(n, declared)...)
	}
	diags = append(diags, schemaWarnings(t, paramBlocks)...)
	if d := toolNameWarning(block, t.Name); d != nil {
		diags = append(diags, d)
	}
	return diags
}

// visitTemplateParts calls f with each part of each template in node:
// literal text and interpolations alike.
func visitTemplateParts(node hclsyntax.Node, f func(part hclsyntax.Expression)) {
	_ = hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		if tmpl, ok := n.(*hclsyntax.TemplateExpr); ok {
			for _, part := range tmpl.Parts {
				f(part)
			}
		}
		return nil
	})
}

// uninterpolatedRef finds, in the literal text of a template, a reference
// written as other template languages write one ({param.x}, {{param.x}},
// $param.x, $(param.x)): HCL interpolates only ${...}, and writes the rest
// as it is.
// Compiled on first use: a start whose config has no such text pays
// nothing for it.
var uninterpolatedRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\{\{ *|\{ *|\$\( *|\$)(param|answer)\.([A-Za-z_][A-Za-z0-9_-]*)( *\}\}| *\}| *\))?`)
})

// uninterpolatedReferences warns about the references to declared names
// (declared[root][name]) that the literal text of node's templates holds
// without ${...}: the call sends them as they are written.
func uninterpolatedReferences(node hclsyntax.Node, declared map[string]map[string]bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	visitTemplateParts(node, func(part hclsyntax.Expression) {
		lit, ok := part.(*hclsyntax.LiteralValueExpr)
		if !ok || lit.Val.Type() != cty.String || !lit.Val.IsKnown() || lit.Val.IsNull() {
			return
		}
		text := lit.Val.AsString()
		if !strings.Contains(text, "param.") && !strings.Contains(text, "answer.") {
			return
		}
		for _, m := range uninterpolatedRef().FindAllStringSubmatchIndex(text, -1) {
			open, root, name := text[m[2]:m[3]], text[m[4]:m[5]], text[m[6]:m[7]]
			closed := m[8] >= 0
			// {param.x and $(param.x are not references of any kind;
			// ${param.x} in the text was written $${param.x}, on purpose.
			escaped := open[0] == '{' && m[0] > 0 && text[m[0]-1] == '$'
			if (open != "$" && !closed) || escaped || !declared[root][name] {
				continue
			}
			written := text[m[0]:m[1]]
			if open == "$" {
				written = text[m[0]:m[7]] // $param.x: what follows is text
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Reference without ${...}",
				Detail: fmt.Sprintf("The text %s is sent as it is written: a string takes a value only from ${...}. Write ${%s.%s} to put the value of %s.%s there (and $${ for a literal ${).",
					written, root, name, root, name),
				Subject: literalSubRange(lit, text, m[0], m[0]+len(written)),
			})
		}
	})
	return diags
}

// literalSubRange is the range of text[start:end] in the source of lit,
// whose value is text; the whole literal's range when the two differ (an
// escape sequence makes the source longer than the value).
func literalSubRange(lit *hclsyntax.LiteralValueExpr, text string, start, end int) *hcl.Range {
	r := lit.SrcRange
	if r.End.Byte-r.Start.Byte != len(text) {
		return r.Ptr()
	}
	pos := func(off int) hcl.Pos {
		p := r.Start
		for _, c := range text[:off] {
			if c == '\n' {
				p.Line++
				p.Column = 1
			} else {
				p.Column++
			}
		}
		p.Byte = r.Start.Byte + off
		return p
	}
	return &hcl.Range{Filename: r.Filename, Start: pos(start), End: pos(end)}
}

// toolNameWarning warns about a tool name that MCP allows but that clients
// passing tools to the Anthropic or OpenAI APIs cannot use as it is: one
// with a '.' or longer than 64 characters.
func toolNameWarning(block *hcl.Block, name string) *hcl.Diagnostic {
	// What the Anthropic and OpenAI APIs accept as a tool (function) name
	// is narrower than what MCP allows.
	if !validToolName(name, true, 128) || validToolName(name, false, 64) {
		return nil // fine, or already an error
	}
	fixed := strings.ReplaceAll(name, ".", "_")
	if len(fixed) > 64 {
		fixed = fixed[:64]
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "Tool name some clients reject",
		Detail:   fmt.Sprintf("The tool name %q fits MCP's naming rules, but the Anthropic and OpenAI APIs accept only letters, digits, '_' and '-', at most 64 of them, so clients that hand tools to them (Claude Desktop, for one) fail the request or rename the tool. Rename it, for example to %q.", name, fixed),
		Subject:  block.LabelRanges[0].Ptr(),
	}
}

// overlapsError reports whether an error of diags points into r or r into it.
func overlapsError(diags hcl.Diagnostics, r hcl.Range) bool {
	return len(overlappingErrors(diags, r)) > 0
}

func overlappingErrors(diags hcl.Diagnostics, r hcl.Range) []*hcl.Diagnostic {
	var out []*hcl.Diagnostic
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Subject != nil && d.Subject.Filename == r.Filename && d.Subject.Overlaps(r) {
			out = append(out, d)
		}
	}
	return out
}

// envUnsetSummary is the summary of the warning for env() of an unset
// variable.
const envUnsetSummary = "Environment variable not set"

// envUnset is a call env("NAME") with no default whose variable is unset,
// and its warning.
type envUnset struct {
	name string
	diag *hcl.Diagnostic
}

// envWarnings finds the calls env("NAME") with no default in node whose
// variable is unset, with a warning for each that names the variable (it
// has no value to leak).
func envWarnings(node hclsyntax.Node, lookup EnvLookup, tool string) []envUnset {
	var found []envUnset
	_ = hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		call, ok := n.(*hclsyntax.FunctionCallExpr)
		if !ok || call.Name != "env" || len(call.Args) == 0 || len(call.Args) > 2 {
			return nil
		}
		if len(call.Args) == 2 {
			def, d := call.Args[1].Value(nil)
			if d.HasErrors() || !def.IsKnown() || !def.IsNull() {
				return nil // a default, or one that is not a literal null
			}
		}
		nv, d := call.Args[0].Value(nil)
		if d.HasErrors() || !nv.IsKnown() || nv.IsNull() || nv.Type() != cty.String {
			return nil
		}
		name := nv.AsString()
		if _, set := lookup(name); set {
			return nil
		}
		found = append(found, envUnset{name: name, diag: &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  envUnsetSummary,
			Detail: fmt.Sprintf("env(%q) has no default and %s is not set, so calls of tool %q fail until it is. Set %s in the environment toolhost runs in, or give a default, as in env(%q, \"value\").",
				name, name, tool, name, name),
			Subject: call.Range().Ptr(),
		}})
		return nil
	})
	return found
}

// interpolationErrors reports values interpolated into a string template
// that have no string form: lists, sets, maps, objects and tuples. HCL
// skips the conversion while a value is unknown, so at load these would go
// unnoticed until a call fails.
func interpolationErrors(node hclsyntax.Node, eval *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	visitTemplateParts(node, func(part hclsyntax.Expression) {
		if _, lit := part.(*hclsyntax.LiteralValueExpr); lit {
			return
		}
		v, d := part.Value(eval)
		if d.HasErrors() {
			return // loop variables, or an error reported elsewhere
		}
		ty := v.Type()
		if ty == cty.DynamicPseudoType || ty.IsPrimitiveType() {
			return
		}
		what := "This value"
		if tr, td := hcl.AbsTraversalForExpr(part); !td.HasErrors() {
			what = adapters.TraversalString(tr)
		}
		fix := fmt.Sprintf("Encode it, as in jsonencode(%s), or pick one attribute.", what)
		if ty.IsListType() || ty.IsSetType() || ty.IsTupleType() {
			fix = fmt.Sprintf("Join it, as in join(\",\", %s), or encode it, as in jsonencode(%s).", what, what)
		}
		if what == "This value" {
			fix = "Join a list with join(\",\", ...), or encode any value with jsonencode(...)."
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid template interpolation value",
			Detail:   fmt.Sprintf("%s is %s, which cannot be written into a string. %s", what, attr.TypeName(ty), fix),
			Subject:  part.Range().Ptr(),
		})
	})
	return diags
}

// checkPathExpr checks a result field's gjson path. A path that
// interpolates params is checked with each interpolation replaced by "0":
// its literal text must be a path whatever the values.
func checkPathExpr(expr hcl.Expression, what string, eval *hcl.EvalContext) *hcl.Diagnostic {
	var path string
	placeholders := false
	switch e := expr.(type) {
	case *hclsyntax.TemplateExpr:
		var b strings.Builder
		for _, part := range e.Parts {
			v, d := part.Value(eval)
			if !d.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
				b.WriteString(v.AsString())
			} else {
				b.WriteString("0")
				placeholders = true
			}
		}
		path = b.String()
	default:
		v, d := expr.Value(eval)
		if d.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
			return nil
		}
		path = v.AsString()
	}
	problem := gjsonPathProblem(path)
	if problem == "" {
		return nil
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid gjson path",
		Detail:   sentenceEnd(fmt.Sprintf("The path of %s, %q%s, %s", what, path, map[bool]string{true: " (with 0 for each value interpolated)"}[placeholders], problem)) + " See https://github.com/tidwall/gjson/blob/master/SYNTAX.md for the syntax.",
		Subject:  expr.Range().Ptr(),
	}
}

// schemaWarnings warns, once per tool, about parameters whose schemas
// common clients reject or cannot translate: map(T) (an object whose
// additionalProperties is a schema), tuple types (prefixItems) and patterns
// that are not ECMAScript regular expressions. The warning points at the
// first such parameter and names them all.
func schemaWarnings(t *Tool, blocks []*hclsyntax.Block) hcl.Diagnostics {
	var problems []string
	var subject *hcl.Range
	attrRange := func(p *Param, attr string) hcl.Range {
		for _, b := range blocks {
			if len(b.Labels) == 1 && b.Labels[0] == p.Name {
				if a, ok := b.Body.Attributes[attr]; ok {
					return a.Expr.Range()
				}
			}
		}
		return p.DeclRange
	}
	for _, p := range t.Params {
		var found []string
		if hasKind(p.Type, KindMap) {
			found = append(found, fmt.Sprintf("param %q is of type %s, an object whose additionalProperties is a schema: Gemini's function declarations have no additionalProperties and need named properties on every object, and OpenAI's strict function calling requires additionalProperties: false. A list(object({ key = string, value = T })) works everywhere.", p.Name, p.Type))
		}
		if hasKind(p.Type, KindTuple) {
			found = append(found, fmt.Sprintf("param %q is of type %s, an array with prefixItems: Gemini's function declarations need items on every array and have no prefixItems, and OpenAI's strict function calling does not support it. An object with named attributes works everywhere.", p.Name, p.Type))
		}
		if len(found) > 0 && subject == nil {
			subject = attrRange(p, "type").Ptr()
		}
		if p.Pattern != nil {
			if why := nonPortablePattern(p.Pattern.String()); why != "" {
				found = append(found, fmt.Sprintf("the pattern of param %q %s, which is RE2 syntax that ECMAScript lacks: clients that validate arguments with JSON Schema (the official TypeScript SDK, Ajv) cannot compile it and reject the tool; toolhost still checks it on every call.", p.Name, why))
				if subject == nil {
					subject = attrRange(p, "pattern").Ptr()
				}
			}
		}
		problems = append(problems, found...)
	}
	if len(problems) == 0 {
		return nil
	}
	for i, s := range problems {
		problems[i] = strings.ToUpper(s[:1]) + s[1:]
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagWarning,
		Summary:  "Schema some clients reject",
		Detail:   fmt.Sprintf("The input schema of tool %q may be refused by some clients. %s", t.Name, strings.Join(problems, " ")),
		Subject:  subject,
	}}
}

// hasKind reports whether t is of kind k or has an element or attribute
// type of that kind.
func hasKind(t *Type, k TypeKind) bool {
	if t == nil {
		return false
	}
	if t.Kind == k {
		return true
	}
	if hasKind(t.Elem, k) {
		return true
	}
	for _, a := range t.Attrs {
		if hasKind(a, k) {
			return true
		}
	}
	for _, e := range t.Elems {
		if hasKind(e, k) {
			return true
		}
	}
	return false
}

// nonPortablePattern returns how an RE2 pattern uses syntax that ECMAScript
// regular expressions (with the u flag, as JSON Schema validators compile
// them) reject, or "" when it uses none.
func nonPortablePattern(p string) string {
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			switch {
			case n == 'A' || n == 'z':
				return fmt.Sprintf(`uses \%c (write %s)`, n, map[byte]string{'A': "^", 'z': "$"}[n])
			case n == 'Q':
				return `uses \Q...\E (escape each character instead)`
			case n == 'C':
				return `uses \C`
			case (n == 'p' || n == 'P') && (i+2 >= len(p) || p[i+2] != '{'):
				return fmt.Sprintf(`uses \%c without braces (write \%c{...})`, n, n)
			}
			i++
		case c == '[' && !inClass:
			inClass = true
			if strings.HasPrefix(p[i+1:], "[:") || strings.HasPrefix(p[i+1:], "^[:") {
				return "uses a POSIX class such as [[:alpha:]] (write [a-zA-Z] or \\p{L})"
			}
			if strings.HasPrefix(p[i+1:], "]") {
				i++ // a literal ] first in the class
			} else if strings.HasPrefix(p[i+1:], "^]") {
				i += 2
			}
		case c == '[' && inClass && strings.HasPrefix(p[i+1:], ":"):
			return "uses a POSIX class such as [[:alpha:]] (write [a-zA-Z] or \\p{L})"
		case c == ']' && inClass:
			inClass = false
		case c == '(' && !inClass && strings.HasPrefix(p[i+1:], "?"):
			rest := p[i+2:]
			switch {
			case strings.HasPrefix(rest, "P<"):
				return "uses (?P<name>...) (write (?<name>...))"
			case len(rest) > 0 && strings.ContainsRune("imsU-", rune(rest[0])):
				return "uses inline flags such as (?i)"
			}
		}
	}
	return ""
}

// unknownFunctions reports calls of functions the language does not have.
// Evaluation finds them too, but not where it stops early: a conditional
// on a value known only at call time is not evaluated further at load.
func unknownFunctions(n hclsyntax.Node, functions map[string]function.Function) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var names []string // for the hint, made at the first unknown name
	_ = hclsyntax.VisitAll(n, func(node hclsyntax.Node) hcl.Diagnostics {
		call, ok := node.(*hclsyntax.FunctionCallExpr)
		if !ok {
			return nil
		}
		if _, ok := functions[call.Name]; ok {
			return nil
		}
		detail := fmt.Sprintf("There is no function named %q.", call.Name)
		alias := functionAlias(call.Name)
		if _, ok := functions[alias]; ok {
			detail += fmt.Sprintf(" HCL calls it %q.", alias)
		} else {
			if names == nil {
				names = slices.Collect(maps.Keys(functions))
			}
			detail += suggest.Hint(call.Name, names)
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Call to unknown function",
			Detail:   detail,
			Subject:  call.NameRange.Ptr(),
		})
		return nil
	})
	return diags
}

// callTimeNowChecks is what the compiler cannot check in the expressions
// of a tool's or resource's block that call now() or timestamp(). The
// compiler sees those as unknown, since their value is the time of a call
// (CompileFunctions), and a function given an unknown argument does not
// run: formatdate("YYYY-MM-DD QQ", now()) would load, then fail at every
// call. Each such attribute is evaluated again here with a known now(),
// the variables it refers to unknown and env() lenient, and the errors of
// its function calls are reported. An error that says a value fixed at
// load is not known gets a note saying that now() is why. found are the
// diagnostics decoding already reported: none is reported twice.
func callTimeNowChecks(block *hcl.Block, lookup EnvLookup, found hcl.Diagnostics) hcl.Diagnostics {
	body, ok := block.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	// The attributes of the block and of its nested blocks, but for the
	// example blocks: validate runs those with the real clock, and serve
	// does not evaluate them at all.
	var attrs []*hclsyntax.Attribute
	var collect func(b *hclsyntax.Body, top bool)
	collect = func(b *hclsyntax.Body, top bool) {
		for _, a := range b.Attributes {
			if callsNow(a.Expr) {
				attrs = append(attrs, a)
			}
		}
		for _, nb := range b.Blocks {
			if top && nb.Type == "example" {
				continue
			}
			collect(nb.Body, false)
		}
	}
	collect(body, true)
	if len(attrs) == 0 {
		return nil
	}
	fns := Functions(lookup)
	fns["env"] = newEnvFunc(lookup, true)
	fns["now"] = sampleNowFunc
	fns["timestamp"] = sampleNowFunc
	var diags hcl.Diagnostics
	for _, a := range attrs {
		if errs := overlappingErrors(found, a.Expr.Range()); len(errs) > 0 {
			for _, e := range errs {
				if fixedAtLoad[e.Summary] && !strings.Contains(e.Detail, nowNote) {
					e.Detail += " " + nowNote
				}
			}
			continue
		}
		vars := map[string]cty.Value{}
		for _, tr := range a.Expr.Variables() {
			vars[tr.RootName()] = cty.DynamicVal
		}
		_, d := a.Expr.Value(&hcl.EvalContext{Variables: vars, Functions: fns})
		for _, x := range d {
			if x.Severity == hcl.DiagError && (x.Summary == "Invalid function argument" || x.Summary == "Error in function call") &&
				x.Subject != nil && !overlapsError(diags, *x.Subject) {
				diags = append(diags, x)
			}
		}
	}
	return diags
}

// sampleNowFunc is now() for callTimeNowChecks: a fixed time in UTC, so
// that checking a formatdate does not load the local time zone (a cost of
// every start).
var sampleNowFunc = function.New(&function.Spec{
	Description: nowFunc.Description(),
	Type:        function.StaticReturnType(cty.String),
	Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		return cty.StringVal("2006-01-02T15:04:05Z"), nil
	},
})

// fixedAtLoad are the summaries of the errors for a value that must be
// known when the config loads and is not.
var fixedAtLoad = map[string]bool{
	attr.NotConstant:    true,
	"Program not fixed": true,
}

// nowNote is the note callTimeNowChecks adds to those errors.
const nowNote = "It calls now() or timestamp(), whose value in a backend is the time of a call: use them only in what is evaluated when the tool is called (a command's arguments, a URL, a template's text)."

// callsNow reports whether expr calls now() or timestamp().
func callsNow(expr hclsyntax.Expression) bool {
	found := false
	_ = hclsyntax.VisitAll(expr, func(n hclsyntax.Node) hcl.Diagnostics {
		if c, ok := n.(*hclsyntax.FunctionCallExpr); ok && (c.Name == "now" || c.Name == "timestamp") {
			found = true
		}
		return nil
	})
	return found
}
