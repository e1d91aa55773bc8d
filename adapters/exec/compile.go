package exec

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/zclconf/go-cty/cty"
)

// compile compiles an exec block into an Exec (Kind.Compile): each
// attribute in turn, then the program, so that every mistake of the block
// is reported at once. It is long because it is that list of attributes,
// one short step each, in the order their checks depend on one another.
func compile(block *hcl.Block, cc *adapters.CompileContext) (adapters.Backend, hcl.Diagnostics) {
	if cc == nil {
		cc = &adapters.CompileContext{}
	}
	content, diags := block.Body.Content(blockSchema)
	e := &Exec{
		tool:        cc.ToolName,
		baseDir:     cc.BaseDir,
		params:      cc.Params,
		timeout:     DefaultExecTimeout,
		killTimeout: DefaultExecKillTimeout,
		killSignal:  DefaultExecKillSignal,
		maxOutput:   DefaultExecMaxOutput,
		running:     map[int]*process{},
	}
	if e.params == nil {
		e.params = map[string]adapters.ParamInfo{}
	}
	e.envCreds = adapters.EnvCredentialNames(block.Body)
	c := &compiler{Attrs: adapters.Attrs{CC: cc, Eval: cc.Eval}}
	e.paramNames = c.ParamNames()
	if c.Eval == nil {
		c.Eval = &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.DynamicVal}}
	}

	attrs := content.Attributes
	if a, ok := attrs["command"]; ok {
		d := c.command(e, a)
		if !d.HasErrors() {
			d = append(d, c.eachVariant(c.loadParams)...)
		}
		diags = append(diags, d...)
	} else {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing command",
			Detail: `An exec block needs a "command" argument: the program and its arguments as a list of strings, ` +
				`such as command = ["grep", "-n", "--", param.pattern, "notes.txt"]. Add it to the block.`,
			Subject: block.DefRange.Ptr(),
		})
	}
	if a, ok := attrs["timeout"]; ok {
		diags = append(diags, c.timeout(e, a)...)
	}
	if a, ok := attrs["kill_timeout"]; ok {
		diags = append(diags, c.killTimeout(e, a)...)
	}
	if a, ok := attrs["kill_signal"]; ok {
		diags = append(diags, c.killSignal(e, a)...)
	}
	if a, ok := attrs["max_output"]; ok {
		diags = append(diags, c.maxOutput(e, a)...)
	}
	if a, ok := attrs["dir"]; ok {
		d := c.dir(e, a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if w := missingDir(e, a); w != nil {
				diags = append(diags, w)
			}
		}
	} else {
		e.dir = cc.BaseDir
	}
	if a, ok := attrs["inherit_env"]; ok {
		diags = append(diags, c.inheritEnv(e, a)...)
	}
	if a, ok := attrs["env"]; ok {
		diags = append(diags, c.env(e, a)...)
	} else {
		e.envKnown = true
	}
	if a, ok := attrs["stdin"]; ok {
		diags = append(diags, c.stdin(e, a)...)
	}
	if a, ok := attrs["stderr_log"]; ok {
		diags = append(diags, c.stderrLog(e, a)...)
	}
	if a, ok := attrs["binary"]; ok {
		diags = append(diags, c.Boolean(a, &e.binary, "Write binary = true when the command prints an image, a sound or another file's bytes.")...)
	}
	if a, ok := attrs["mime_type"]; ok {
		diags = append(diags, c.mimeType(e, a)...)
		if _, ok := attrs["binary"]; !ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "mime_type without binary",
				Detail:   "mime_type names the media type of binary output. Add binary = true to the exec block, or remove mime_type: text output is text/plain, or application/json when it is JSON.",
				Subject:  a.NameRange.Ptr(),
			})
		}
	}
	if a, ok := attrs["charset"]; ok {
		diags = append(diags, c.charset(e, a)...)
		if e.binary {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "charset with binary",
				Detail:   "charset names the encoding of text output, and binary = true passes the output on as bytes. Remove one of them.",
				Subject:  a.NameRange.Ptr(),
			})
		}
	} else {
		e.charset = defaultCharset() // the console's code page on Windows
	}
	// A program that is not found is reported with the block's other
	// mistakes, not only once they are fixed.
	if c.program != "" {
		path, err := c.lookProgram(e)
		if d := c.checkProgram(e, err); d != nil {
			diags = append(diags, d)
		} else if !diags.HasErrors() && !batchProgram(c.program) {
			// The name may be found as a batch file (deploy as
			// deploy.cmd, through PATHEXT on Windows).
			diags = append(diags, c.eachVariant(func(args []scriptArg) hcl.Diagnostics {
				if d := c.batchParams(args, path, true); d != nil {
					return hcl.Diagnostics{d}
				}
				return nil
			})...)
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	e.plain = e.plainExprs()
	return e, diags
}

// plainExprs reports whether every expression a call evaluates calls no
// function and runs no for expression (see adapters.PlainExprs): the
// command unless it is constant, the env and stdin unless they are.
func (e *Exec) plainExprs() bool {
	var exprs []hcl.Expression
	if e.argv == nil {
		exprs = append(exprs, e.command)
	}
	for _, c := range e.concatArgs {
		exprs = append(exprs, c.expr)
	}
	if !e.envKnown && e.env != nil {
		exprs = append(exprs, e.env)
	}
	if e.stdinConst == nil && e.stdin != nil {
		exprs = append(exprs, e.stdin)
	}
	return adapters.PlainExprs(exprs...)
}

// missingDir warns when e's working directory, that a of the block sets,
// is not found; nil when it is.
func missingDir(e *Exec, a *hcl.Attribute) *hcl.Diagnostic {
	err := e.checkDir()
	if err == nil {
		return nil
	}
	// A warning, as for a program not found: the directory may be made
	// after the config is written.
	return &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "Working directory not found",
		Detail: fmt.Sprintf("%s, so calls of tool %q fail until that is fixed. dir is relative to the config file's directory; create the directory, or correct the path.",
			sentence(err.Error()), e.tool),
		Subject:    a.Expr.Range().Ptr(),
		Expression: a.Expr,
	}
}

// sentence capitalizes a message for the start of a sentence.
func sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// compiler holds what the attribute checks of one exec block share.
type compiler struct {
	adapters.Attrs
	// program is the command's first element once it is known to be fixed,
	// and programRange where it is written.
	program      string
	programRange hcl.Range
	// cmdExpr is the command's expression, and variants the lists it may
	// be at a call (see commandVariants), each with its elements as the
	// script checks see them (see scriptArgs); nil when the command has
	// errors.
	cmdExpr  hcl.Expression
	variants [][]scriptArg
}

// commandExample is the command messages offer as an example.
const commandExample = `["grep", "-n", "--", param.pattern, "notes.txt"]`

// command compiles the command attribute a into e: the program, fixed
// when the config loads, the elements and where each comes from, and the
// checks that no parameter becomes code (scriptChecks).
func (c *compiler) command(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	e.command = a.Expr
	c.cmdExpr = a.Expr
	invalid := func(rng hcl.Range, detail string) *hcl.Diagnostic {
		return &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Invalid command",
			Detail:     detail,
			Subject:    rng.Ptr(),
			Expression: a.Expr,
		}
	}

	e.sensitiveExprs = adapters.SensitiveArgs(a.Expr)
	tuple, isTuple := a.Expr.(*hclsyntax.TupleConsExpr)
	if isTuple {
		for i, ex := range tuple.Exprs {
			if adapters.CallsSensitive(ex) {
				e.sensitiveArgs = append(e.sensitiveArgs, i)
			}
		}
	}
	if isTuple && len(tuple.Exprs) == 0 {
		return hcl.Diagnostics{emptyCommand(a)}
	}
	// The program is fixed by the configuration.
	if isTuple {
		if refs := paramRefs(tuple.Exprs[0], c.ParamNames()); len(refs) > 0 {
			return hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Program depends on a parameter",
				Detail: fmt.Sprintf("The first element of command names the program to run, and it refers to parameter %q. "+
					"The program must be fixed in the configuration: name it literally and pass parameters as later elements, "+
					"such as command = %s.", refs[0], commandExample),
				Subject:    tuple.Exprs[0].Range().Ptr(),
				Expression: a.Expr,
			}}
		}
	}

	v, diags := c.Value(a.Expr)
	if diags.HasErrors() {
		return diags
	}
	v, _ = v.UnmarkDeep()
	ty := v.Type()
	switch {
	case ty == cty.DynamicPseudoType:
	case ty.IsListType(), ty.IsTupleType():
	default:
		return append(diags, invalid(a.Expr.Range(), fmt.Sprintf(
			"The command must be a list of strings, the program followed by its arguments, and this is %s. "+
				"Each element is passed to the program as one argument and no shell is involved; write, for commandExample, command = %s. "+
				"To use shell syntax, run the shell explicitly, as in [\"sh\", \"-c\", \"...\", \"sh\", param.x], and read parameters as \"$1\".",
			attr.TypeName(ty), commandExample)))
	}
	if v.IsKnown() && v.IsNull() {
		return append(diags, invalid(a.Expr.Range(),
			"The command is null. Write the program and its arguments as a list, such as command = "+commandExample+"."))
	}

	elemRange := func(i int) hcl.Range {
		if isTuple && i < len(tuple.Exprs) {
			return tuple.Exprs[i].Range()
		}
		return a.Expr.Range()
	}
	var elems []cty.Value
	known := v.IsKnown() && !v.IsNull()
	if known {
		elems = v.AsValueSlice()
	}
	diags = append(diags, elementDiags(a, ty, known, elems, elemRange)...)
	if diags.HasErrors() {
		return diags
	}

	// The program must be known now. A command of a length known only
	// when the tool is called, concat(["git", "add", "--"], param.files),
	// has it first in its first list.
	if elems == nil && c.concatCommand(e, a) {
		return append(diags, c.scriptChecks(a.Expr)...)
	}
	if elems == nil || !elems[0].IsKnown() {
		return append(diags, c.programNotFixed(a, elems == nil, elemRange(0)))
	}
	if prog, _ := argString(elems[0]); prog == "" {
		return append(diags, invalid(elemRange(0),
			"The program name is empty. Name the program to run as the first element, such as command = "+commandExample+"."))
	}

	c.program, _ = argString(elems[0])
	c.programRange = elemRange(0)
	if d := c.scriptChecks(a.Expr); d.HasErrors() {
		return append(diags, d...)
	}
	e.allRefs = paramRefs(a.Expr, c.ParamNames())
	if v.IsWhollyKnown() {
		e.argv = make([]string, len(elems))
		for i, el := range elems {
			e.argv[i], _ = argString(el)
		}
	}
	switch {
	case isTuple:
		e.sources = c.tupleSources(tuple, elems)
	case elems != nil:
		e.sources = knownLengthSources(elems, e.allRefs)
	}
	return diags
}

// knownLengthSources are the sources of a command that is not written as a list
// but whose length is known: known elements come from the configuration;
// the others may come from any parameter the command refers to, refs.
func knownLengthSources(elems []cty.Value, refs []string) []argSource {
	sources := make([]argSource, len(elems))
	for i, el := range elems {
		if el.IsWhollyKnown() {
			s, _ := argString(el)
			sources[i].separator = s == "--"
			continue
		}
		sources[i].params = refs
	}
	return sources
}

// concatCommand compiles a command of a length known only when the tool
// is called, concat(["git", "add", "--"], param.files), whose program is
// first in its first list; it reports false for any other command.
func (c *compiler) concatCommand(e *Exec, a *hcl.Attribute) bool {
	if call, head := concatHead(a.Expr); head != nil && len(paramRefs(head, c.ParamNames())) == 0 {
		if hv, d := c.Value(head); !d.HasErrors() && hv.IsWhollyKnown() {
			if prog, problem := argString(hv); problem == "" && prog != "" {
				c.program, c.programRange = prog, head.Range()
				e.allRefs = paramRefs(a.Expr, c.ParamNames())
				for _, arg := range call.Args {
					ca := concatArg{expr: arg}
					if t, ok := arg.(*hclsyntax.TupleConsExpr); ok {
						ca.literal = c.tupleSources(t, nil)
					} else {
						ca.params = paramRefs(arg, c.ParamNames())
					}
					e.concatArgs = append(e.concatArgs, ca)
				}
				return true
			}
		}
	}
	return false
}

// programNotFixed is the error of a command whose program is not known
// when the config loads, first where its first element is written;
// unknownLength says that its length is not known either.
func (c *compiler) programNotFixed(a *hcl.Attribute, unknownLength bool, first hcl.Range) *hcl.Diagnostic {
	refs := paramRefs(a.Expr, c.ParamNames())
	detail := "The first element of command names the program to run, and it must be fixed in the configuration, but this command is only known when the tool is called."
	switch {
	case unknownLength && len(refs) > 0:
		detail = fmt.Sprintf("The first element of command names the program to run, and it must be fixed in the configuration, but how this command starts is only known when the tool is called (it depends on parameter %s). "+
			"To add a list parameter's items as arguments, put the program first in concat's first list, as in command = concat([\"git\", \"add\", \"--\"], param.files).", adapters.QuoteList(refs))
	case len(refs) > 0:
		detail = fmt.Sprintf("The first element of command names the program to run, and it must be fixed in the configuration, but this command depends on parameter %q.", refs[0])
	}
	return &hcl.Diagnostic{
		Severity:   hcl.DiagError,
		Summary:    "Program not fixed",
		Detail:     detail + " Write the command as a list whose first element is the program's name, such as command = " + commandExample + ".",
		Subject:    first.Ptr(),
		Expression: a.Expr,
	}
}

// elementDiags checks the elements of a command of type ty, elems when
// known is set (its length is known): there must be one, and each must
// be one argument, a string, number or bool. elemRange gives where
// element i is written.
func elementDiags(a *hcl.Attribute, ty cty.Type, known bool, elems []cty.Value, elemRange func(int) hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if ty.IsListType() && !argType(ty.ElementType()) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid command element",
			Detail: fmt.Sprintf("The command is a list of %s, and each element must be a string, number or bool: "+
				"one argument of the program. Pass each argument as its own element.", ty.ElementType().FriendlyName()),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	if known && len(elems) == 0 {
		return append(diags, emptyCommand(a))
	}
	for i, el := range elems {
		if problem := argProblem(el); problem != "" {
			fix := "Pass each argument as its own element."
			if t := el.Type(); i > 0 && (t.IsListType() || t.IsSetType() || t.IsTupleType()) {
				fix = "To pass each item of a list as an argument of its own, join the lists with concat, as in command = concat([\"git\", \"add\", \"--\"], param.files)."
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid command element",
				Detail: fmt.Sprintf("The element command[%d] %s, and each element must be a string, number or bool: "+
					"one argument of the program. %s", i, problem, fix),
				Subject:    elemRange(i).Ptr(),
				Expression: a.Expr,
			})
		}
	}
	return diags
}

// emptyCommand is the error of a command that is an empty list.
func emptyCommand(a *hcl.Attribute) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Empty command",
		Detail: "The command list is empty, so there is no program to run. " +
			"Put the program first and its arguments after it, such as command = " + commandExample + ".",
		Subject:    a.Expr.Range().Ptr(),
		Expression: a.Expr,
	}
}

// tupleSources says where each element of a literal list in the command
// comes from; elems are the elements' values known at load, or nil to
// evaluate the ones that refer to nothing.
func (c *compiler) tupleSources(tuple *hclsyntax.TupleConsExpr, elems []cty.Value) []argSource {
	sources := make([]argSource, len(tuple.Exprs))
	for i, x := range tuple.Exprs {
		if len(x.Variables()) == 0 {
			v := cty.DynamicVal
			if i < len(elems) {
				v = elems[i]
			} else if val, d := c.Value(x); !d.HasErrors() {
				v = val
			}
			if v.IsKnown() {
				s, _ := argString(v)
				sources[i].separator = s == "--"
				continue
			}
		}
		sources[i].params = leadingParamRefs(x, c.ParamNames())
	}
	return sources
}

// refsArgs reports whether expr refers to what the caller chooses: the
// parameters, the answers of an ask form, or the claims of the caller's
// token.
func refsArgs(expr hcl.Expression) bool {
	for _, tr := range expr.Variables() {
		if r := tr.RootName(); r == "param" || r == "answer" {
			return true
		}
	}
	return adapters.UsesClaims(expr)
}

// paramRefs lists the parameters expr refers to, sorted. A reference to the
// whole param object refers to all of all.
func paramRefs(expr hcl.Expression, all []string) []string {
	set := map[string]bool{}
	for _, tr := range expr.Variables() {
		name, ok := adapters.ParamName(tr)
		switch {
		case !ok:
		case name == "":
			for _, n := range all {
				set[n] = true
			}
		default:
			set[name] = true
		}
	}
	return slices.Sorted(maps.Keys(set)) // nil when empty
}

// leadingParamRefs lists the parameters whose values can make up the start
// of expr's value. A template starting with literal text is fixed at the
// start; a conditional starts with one of its results; anything else may
// start with any parameter it refers to.
func leadingParamRefs(expr hclsyntax.Expression, all []string) []string {
	switch x := expr.(type) {
	case *hclsyntax.LiteralValueExpr:
		return nil
	case *hclsyntax.ParenthesesExpr:
		return leadingParamRefs(x.Expression, all)
	case *hclsyntax.TemplateWrapExpr:
		return leadingParamRefs(x.Wrapped, all)
	case *hclsyntax.TemplateExpr:
		if len(x.Parts) > 0 {
			if lit, ok := x.Parts[0].(*hclsyntax.LiteralValueExpr); ok &&
				lit.Val.Type() == cty.String && lit.Val.IsKnown() && !lit.Val.IsNull() && lit.Val.AsString() != "" {
				return nil
			}
		}
	case *hclsyntax.FunctionCallExpr:
		// format("--limit=%d", param.n) starts with its format's text,
		// up to the first verb.
		if x.Name == "format" && len(x.Args) > 0 && !x.ExpandFinal {
			if f, ok := literalString(x.Args[0]); ok && f != "" && f[0] != '%' {
				return nil
			}
		}
	case *hclsyntax.ConditionalExpr:
		set := map[string]bool{}
		for _, n := range leadingParamRefs(x.TrueResult, all) {
			set[n] = true
		}
		for _, n := range leadingParamRefs(x.FalseResult, all) {
			set[n] = true
		}
		return slices.Sorted(maps.Keys(set))
	}
	return paramRefs(expr, all)
}

// literalString returns the value of expr when it is a string written
// out, without interpolations.
func literalString(expr hclsyntax.Expression) (string, bool) {
	if w, ok := expr.(*hclsyntax.TemplateExpr); ok && len(w.Parts) == 1 {
		expr = w.Parts[0]
	}
	lit, ok := expr.(*hclsyntax.LiteralValueExpr)
	if !ok || lit.Val.Type() != cty.String || !lit.Val.IsKnown() || lit.Val.IsNull() {
		return "", false
	}
	return lit.Val.AsString(), true
}

// lookProgram finds the program as a call would: on the PATH the command
// gets, or at a path relative to the config file.
func (c *compiler) lookProgram(e *Exec) (string, error) {
	path, ok := os.LookupEnv("PATH")
	if !ok {
		path = defaultPath
	}
	if e.envKnown {
		if v, set := e.envConst["PATH"]; set {
			path = defaultPath
			if v != nil {
				path = *v
			}
		}
	}
	return e.resolveProgram(c.program, []string{"PATH=" + path})
}

// checkProgram warns when the program is not where a call would look for
// it (err, of lookProgram): on the PATH the command gets, or at a path
// relative to the config file. It is a warning, not an error: the program may be installed after
// the config is written, and validate may run on another machine.
func (c *compiler) checkProgram(e *Exec, err error) *hcl.Diagnostic {
	if err == nil {
		return nil
	}
	detail := fmt.Sprintf("The program %q is not on the PATH toolhost gives the command, so calls of tool %q fail until it is installed. Install it, or give its full path as the first element of command.", c.program, e.tool)
	hint := ""
	if !strings.ContainsRune(c.program, '/') {
		hint = e.localProgramHint(c.program)
	}
	switch {
	case hint != "":
		detail = fmt.Sprintf("The program %q is not on the PATH toolhost gives the command, so calls of tool %q fail. %s.", c.program, e.tool, sentence(hint))
	case filepath.IsAbs(c.program):
		detail = fmt.Sprintf("%s, so calls of tool %q fail until it is there. Install the program at that path, make it executable (chmod +x), or correct the path.", sentence(err.Error()), e.tool)
	case strings.ContainsRune(c.program, '/'):
		detail = fmt.Sprintf("%s, so calls of tool %q fail until it is there. A program path is relative to the config file's directory; create the file, make it executable (chmod +x), or correct the path.", sentence(err.Error()), e.tool)
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "Program not found",
		Detail:   detail,
		Subject:  c.programRange.Ptr(),
	}
}
