package exec

import (
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// scriptArg is one element of a command as the script checks see it, or a
// list of elements known only when the tool is called.
type scriptArg struct {
	// expr is where the element is written, when the command's shape says
	// (literal lists, concat of them, a conditional decided at load); for
	// a run, the list's expression. nil otherwise.
	expr hclsyntax.Expression
	val  cty.Value // the value at load, without marks
	// params and answers are the parameters and the ask form's answers the
	// value is made from, sorted; "answer" stands for the whole form.
	params, answers []string
	// run is set for a list whose length is known only when the tool is
	// called, such as param.files in concat(["ls", "--"], param.files).
	run bool
	// builtExprs are, for a run whose expression is known, the parts of
	// it that make text of a parameter or an answer (see runBuilt).
	builtExprs []hclsyntax.Expression
}

// known reports whether the configuration fixes the element's value.
func (a scriptArg) known() bool { return !a.run && a.val.IsKnown() }

// literal returns the element's text when the configuration fixes it.
func (a scriptArg) literal() (string, bool) {
	if !a.known() {
		return "", false
	}
	s, problem := argString(a.val)
	return s, problem == ""
}

// built reports whether the value is made from a parameter or an answer
// other than by being one: a parameter alone (param.script) is plainly the
// caller's text, while "grep '${param.x}'" mixes the caller's text into the
// author's. Where the element is not written out, only a value fixed at
// load is not built.
func (a scriptArg) built() bool {
	switch {
	case len(a.params)+len(a.answers) == 0:
		return false
	case a.run && a.expr != nil:
		return len(a.builtExprs) > 0
	case a.expr != nil:
		return !isBareParamRef(a.expr)
	}
	return !a.known()
}

// refMark marks, in the evaluation of scriptArgs, the value of the
// parameter (root "param") or answer (root "answer") name; name is "" for
// a form whose fields are not known.
type refMark struct{ root, name string }

// markedEval is the compile-time context with each parameter and answer an
// unknown value marked with its name: whatever an expression makes of
// them, its value carries the marks of those it is made from.
func (c *compiler) markedEval() *hcl.EvalContext {
	vars := maps.Clone(c.Eval.Variables)
	for root, v := range vars {
		if root != "param" && root != "answer" {
			continue
		}
		var types map[string]cty.Type
		switch {
		case v.Type().IsObjectType():
			types = v.Type().AttributeTypes()
		case root == "param":
			types = map[string]cty.Type{}
			for _, n := range c.ParamNames() {
				types[n] = cty.DynamicPseudoType
			}
		default:
			vars[root] = cty.DynamicVal.Mark(refMark{root, ""})
			continue
		}
		attrs := make(map[string]cty.Value, len(types))
		for n, t := range types {
			attrs[n] = cty.UnknownVal(t).Mark(refMark{root, n})
		}
		vars[root] = cty.ObjectVal(attrs)
	}
	return withMarkedClaims(&hcl.EvalContext{Variables: vars, Functions: c.Eval.Functions})
}

// scriptArgs returns the elements of the command x as it is evaluated at
// load with each parameter and answer unknown and marked (see markedEval),
// so that the script checks see the list however HCL builds it: concat,
// flatten, slice, reverse, for expressions, conditionals. An element not
// known at load is made from the parameters and answers whose marks it
// carries, or those of the list it is in. A part of the list whose length
// is only known when the tool is called is one run.
func (c *compiler) scriptArgs(x hcl.Expression) []scriptArg {
	ctx := c.markedEval()
	var args []scriptArg
	if v, diags := x.Value(ctx); !diags.HasErrors() {
		v, _ = v.Unmark()
		plain, _ := x.Value(c.Eval)
		if v.IsKnown() == plain.IsKnown() && (!v.IsKnown() || c.sameLength(x, ctx, v)) {
			args = c.scriptArgsOf(x, ctx)
		}
	}
	if args == nil {
		// Without the marks (they fail the expression, or change its
		// length).
		args = c.scriptArgsOf(x, c.Eval)
	}
	// An element not written out and not known at load can only be made
	// from the parameters and answers. Some functions drop the marks
	// (try, those that take an unknown list whole, as element and lookup
	// do, and %{for} in a template): an element that carries none may be
	// made from any parameter and answer the command refers to.
	params, answers := paramRefs(x, c.ParamNames()), answerRefs(x)
	for i := range args {
		if a := &args[i]; a.expr == nil && !a.run && !a.known() && len(a.params)+len(a.answers) == 0 {
			a.params, a.answers = params, answers
		}
	}
	return args
}

// scriptArgsOf returns the elements of the list x evaluates to in ctx.
func (c *compiler) scriptArgsOf(x hcl.Expression, ctx *hcl.EvalContext) []scriptArg {
	v, diags := x.Value(ctx)
	if diags.HasErrors() {
		v = cty.DynamicVal
	}
	v, listMarks := v.Unmark()
	if v.IsKnown() && !v.IsNull() && v.CanIterateElements() && c.sameLength(x, ctx, v) {
		n := v.LengthInt()
		exprs := c.elementExprs(x)
		if len(exprs) != n {
			exprs = nil
		}
		args := make([]scriptArg, 0, n)
		for i, el := range v.AsValueSlice() {
			el, marks := el.UnmarkDeep()
			a := scriptArg{val: el}
			if exprs != nil {
				a.expr = exprs[i]
				a.params, a.answers = paramRefs(a.expr, c.ParamNames()), answerRefs(a.expr)
			} else {
				a.params, a.answers = c.markRefs(marks, listMarks)
			}
			args = append(args, a)
		}
		return args
	}
	switch sx := x.(type) {
	case *hclsyntax.ParenthesesExpr:
		return c.scriptArgsOf(sx.Expression, ctx)
	case *hclsyntax.ConditionalExpr:
		if b, ok := c.condition(sx.Condition); ok {
			if b {
				return c.scriptArgsOf(sx.TrueResult, ctx)
			}
			return c.scriptArgsOf(sx.FalseResult, ctx)
		}
	case *hclsyntax.FunctionCallExpr:
		if sx.Name == "concat" && !sx.ExpandFinal {
			var args []scriptArg
			for _, arg := range sx.Args {
				args = append(args, c.scriptArgsOf(arg, ctx)...)
			}
			return args
		}
	}
	run := scriptArg{val: v, run: true}
	run.params, run.answers = c.markRefs(listMarks)
	if sx, ok := x.(hclsyntax.Expression); ok {
		run.expr = sx
		run.builtExprs = c.runBuilt(sx)
		run.params, run.answers = nil, nil
		for _, b := range run.builtExprs {
			run.params = append(run.params, paramRefs(b, c.ParamNames())...)
			run.answers = append(run.answers, answerRefs(b)...)
		}
		slices.Sort(run.params)
		slices.Sort(run.answers)
		run.params, run.answers = slices.Compact(run.params), slices.Compact(run.answers)
	}
	return []scriptArg{run}
}

// runBuilt returns the parts of x, a list known only at call time, that
// make text of a parameter or an answer: not a parameter alone
// (param.files), not the literal elements of the branches of a
// conditional (param.flag ? ["-c", param.script] : []), which are what
// the same elements are in a list written out.
func (c *compiler) runBuilt(x hclsyntax.Expression) []hclsyntax.Expression {
	switch x := x.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		return nil
	case *hclsyntax.ParenthesesExpr:
		return c.runBuilt(x.Expression)
	case *hclsyntax.ConditionalExpr:
		return append(c.runBuilt(x.TrueResult), c.runBuilt(x.FalseResult)...)
	case *hclsyntax.TupleConsExpr:
		var out []hclsyntax.Expression
		for _, el := range x.Exprs {
			if !isBareParamRef(el) && len(paramRefs(el, c.ParamNames()))+len(answerRefs(el)) > 0 {
				out = append(out, el)
			}
		}
		return out
	case *hclsyntax.FunctionCallExpr:
		if x.Name == "concat" && !x.ExpandFinal {
			var out []hclsyntax.Expression
			for _, arg := range x.Args {
				out = append(out, c.runBuilt(arg)...)
			}
			return out
		}
	}
	if len(paramRefs(x, c.ParamNames()))+len(answerRefs(x)) > 0 {
		return []hclsyntax.Expression{x}
	}
	return nil
}

// sameLength reports whether x, whose value in ctx is v, has as many
// elements without the marks: a function may tell a marked value apart
// (cty's flatten takes a marked unknown for one element, where an
// unmarked one makes its whole result unknown), and the length at call
// time is the one without.
func (c *compiler) sameLength(x hcl.Expression, ctx *hcl.EvalContext, v cty.Value) bool {
	if ctx == c.Eval {
		return true
	}
	plain, diags := x.Value(c.Eval)
	plain, _ = plain.UnmarkDeep()
	return !diags.HasErrors() && plain.IsKnown() && !plain.IsNull() && plain.CanIterateElements() && plain.LengthInt() == v.LengthInt()
}

// elementExprs returns the expressions of the elements of x when its shape
// is written out: a literal list, concat of such lists, a conditional
// decided at load. nil otherwise.
func (c *compiler) elementExprs(x hcl.Expression) []hclsyntax.Expression {
	switch x := x.(type) {
	case *hclsyntax.TupleConsExpr:
		return append([]hclsyntax.Expression{}, x.Exprs...) // not nil when empty
	case *hclsyntax.ParenthesesExpr:
		return c.elementExprs(x.Expression)
	case *hclsyntax.ConditionalExpr:
		if b, ok := c.condition(x.Condition); ok {
			if b {
				return c.elementExprs(x.TrueResult)
			}
			return c.elementExprs(x.FalseResult)
		}
	case *hclsyntax.FunctionCallExpr:
		if x.Name != "concat" || x.ExpandFinal {
			return nil
		}
		var out []hclsyntax.Expression
		for _, arg := range x.Args {
			exprs := c.elementExprs(arg)
			if exprs == nil {
				return nil
			}
			out = append(out, exprs...)
		}
		return out
	}
	return nil
}

// condition returns the value of a conditional's condition when it is
// known at load.
func (c *compiler) condition(x hcl.Expression) (bool, bool) {
	v, diags := x.Value(c.Eval)
	if diags.HasErrors() {
		return false, false
	}
	v, _ = v.UnmarkDeep()
	v, err := convert.Convert(v, cty.Bool)
	if err != nil || !v.IsKnown() || v.IsNull() {
		return false, false
	}
	return v.True(), true
}

// markRefs lists the parameters and the answers that the marks in sets
// name, sorted.
func (c *compiler) markRefs(sets ...cty.ValueMarks) (params, answers []string) {
	for _, marks := range sets {
		for m := range marks {
			ref, ok := m.(refMark)
			switch {
			case !ok:
			case ref.root == "answer" && ref.name == "":
				answers = append(answers, "answer")
			case ref.root == "answer":
				answers = append(answers, ref.name)
			case ref.name == "":
				params = append(params, c.ParamNames()...)
			default:
				params = append(params, ref.name)
			}
		}
	}
	slices.Sort(params)
	slices.Sort(answers)
	return slices.Compact(params), slices.Compact(answers)
}

// builtRefRange returns where x refers to the parameter (root "param")
// or answer name, preferring a reference that text is made from (in an
// interpolation, a function's argument, an operation) to one that only
// moves a value along, and whether it is one; x's range when it has none.
func builtRefRange(x hcl.Expression, root, name string) (hcl.Range, bool) {
	sx, ok := x.(hclsyntax.Expression)
	if !ok {
		return x.Range(), false
	}
	f := &refFinder{root: root, name: name}
	hclsyntax.Walk(sx, f)
	switch {
	case f.built != nil:
		return *f.built, true
	case f.any != nil:
		return *f.any, false
	}
	return x.Range(), false
}

// refFinder is the hclsyntax.Walker of builtRefRange.
type refFinder struct {
	root, name string
	parents    []hclsyntax.Node
	built, any *hcl.Range
}

// Enter notes a reference to the parameter or answer, and whether what
// holds it makes text of it.
func (f *refFinder) Enter(n hclsyntax.Node) hcl.Diagnostics {
	if rng, ok := claimRange(n, f.name); ok && f.root == "answer" {
		f.note(rng)
	}
	if x, ok := n.(*hclsyntax.ScopeTraversalExpr); ok && x.Traversal.RootName() == f.root {
		name := ""
		if len(x.Traversal) > 1 {
			if step, ok := x.Traversal[1].(hcl.TraverseAttr); ok {
				name = step.Name
			}
		}
		if f.name == "" || name == "" || name == f.name || (f.root == "answer" && f.name == "answer") {
			rng := x.Traversal.SourceRange()
			if len(x.Traversal) > 1 {
				rng = hcl.RangeBetween(x.Traversal[0].SourceRange(), x.Traversal[1].SourceRange())
			}
			f.note(rng)
		}
	}
	f.parents = append(f.parents, n)
	return nil
}

// note notes a reference at rng, and whether what holds it makes text
// of it.
func (f *refFinder) note(rng hcl.Range) {
	if f.any == nil {
		f.any = &rng
	}
	if f.built == nil && len(f.parents) > 0 && buildsText(f.parents[len(f.parents)-1]) {
		f.built = &rng
	}
}

// Exit leaves a node.
func (f *refFinder) Exit(hclsyntax.Node) hcl.Diagnostics {
	f.parents = f.parents[:len(f.parents)-1]
	return nil
}

// listFuncs are the functions that move the elements of lists along
// without making new text of them.
var listFuncs = []string{"concat", "flatten", "slice", "reverse", "element", "coalesce", "coalescelist", "compact", "distinct", "sort", "try"}

// buildsText reports whether n makes new text of its operands.
func buildsText(n hclsyntax.Node) bool {
	switch n := n.(type) {
	case *hclsyntax.TemplateExpr, *hclsyntax.TemplateJoinExpr, *hclsyntax.BinaryOpExpr, *hclsyntax.UnaryOpExpr:
		return true
	case *hclsyntax.FunctionCallExpr:
		return !slices.Contains(listFuncs, n.Name)
	}
	return false
}
