package exec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// maxVariants caps the command lists a command with conditionals
// known only at a call is checked as (see commandVariants).
const maxVariants = 64

// commandVariants returns the command lists x may be at a call, as
// expressions: x with each point where a call chooses its value (see
// openBranch) replaced by each of its options, in every combination, so
// that the checks see what each branch puts in the list as if it were
// written out (concat(["env"], param.strict ? ["bash", "-e"] : ["bash"],
// ...), ["nice", ["sh", "cat"][param.n], ...]). It returns nil and the
// point that makes more than maxVariants lists.
func (c *compiler) commandVariants(x hclsyntax.Expression) ([]hclsyntax.Expression, hclsyntax.Expression) {
	var out []hclsyntax.Expression
	pending := []hclsyntax.Expression{x}
	for len(pending) > 0 {
		v := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		node, options := c.openBranch(v)
		if node == nil {
			out = append(out, v)
			continue
		}
		if len(out)+len(pending)+len(options) > maxVariants {
			return nil, node
		}
		for i := len(options) - 1; i >= 0; i-- {
			r := replace(v, node, options[i])
			if r == v {
				return nil, node // not reached by replace: refused rather than read wrong
			}
			pending = append(pending, r)
		}
	}
	return out, nil
}

// openBranch returns the first point in x where a call chooses the value,
// and the expressions it may be: a conditional whose condition refers only
// to the variables of the configuration (its branches; the one branch when
// the condition is known at load), and a choice among values fixed at load
// by a key or index the call gives (["sh", "cat"][param.n], element,
// lookup and its default, the arguments of try, coalesce and
// coalescelist) when the values may matter to the checks (see
// branchMatters). A conditional whose condition refers to a for
// expression's symbol is left alone: its branch changes from one item to
// the next. nil when there is none.
func (c *compiler) openBranch(x hclsyntax.Expression) (hclsyntax.Expression, []hclsyntax.Expression) {
	f := &branchFinder{c: c}
	hclsyntax.Walk(x, f)
	return f.node, f.options
}

// branchFinder is the hclsyntax.Walker of openBranch.
type branchFinder struct {
	c       *compiler
	parents []hclsyntax.Node
	node    hclsyntax.Expression
	options []hclsyntax.Expression
}

// Enter looks at n for a point where a call chooses the value.
func (f *branchFinder) Enter(n hclsyntax.Node) hcl.Diagnostics {
	var parent hclsyntax.Node
	if len(f.parents) > 0 {
		parent = f.parents[len(f.parents)-1]
	}
	f.parents = append(f.parents, n)
	if f.node == nil {
		f.node, f.options = f.c.branchAt(n, parent)
	}
	return nil
}

// Exit leaves a node.
func (f *branchFinder) Exit(hclsyntax.Node) hcl.Diagnostics {
	f.parents = f.parents[:len(f.parents)-1]
	return nil
}

// branchAt returns n and its options when n is a point where a call
// chooses the value (see openBranch), parent being what holds it; nil
// otherwise.
func (c *compiler) branchAt(n, parent hclsyntax.Node) (hclsyntax.Expression, []hclsyntax.Expression) {
	// fixed lists the values of a collection fixed at load, as literals
	// where n is, then extra, when one of them may matter.
	fixed := func(coll hclsyntax.Expression, extra ...hclsyntax.Expression) []hclsyntax.Expression {
		v, diags := coll.Value(c.Eval)
		if diags.HasErrors() || !v.IsWhollyKnown() || v.IsNull() || !v.CanIterateElements() || v.LengthInt() == 0 {
			return nil
		}
		v, _ = v.UnmarkDeep()
		var out []hclsyntax.Expression
		for it := v.ElementIterator(); it.Next(); {
			_, el := it.Element()
			out = append(out, &hclsyntax.LiteralValueExpr{Val: el, SrcRange: n.Range()})
		}
		out = append(out, extra...)
		if !c.branchMatters(out, parent) {
			return nil
		}
		return out
	}
	chosen := func(key hclsyntax.Expression) bool {
		if !c.global(key) {
			return false
		}
		v, diags := key.Value(c.Eval)
		return diags.HasErrors() || !v.IsWhollyKnown()
	}
	switch x := n.(type) {
	case *hclsyntax.ConditionalExpr:
		if !c.global(x.Condition) {
			return nil, nil
		}
		if b, known := c.condition(x.Condition); known {
			if b {
				return x, []hclsyntax.Expression{x.TrueResult}
			}
			return x, []hclsyntax.Expression{x.FalseResult}
		}
		return x, []hclsyntax.Expression{x.TrueResult, x.FalseResult}
	case *hclsyntax.IndexExpr:
		if opts := fixed(x.Collection); chosen(x.Key) && opts != nil {
			return x, opts
		}
	case *hclsyntax.FunctionCallExpr:
		switch {
		case x.ExpandFinal:
		case (x.Name == "element" || x.Name == "lookup") && len(x.Args) >= 2:
			if opts := fixed(x.Args[0], x.Args[2:]...); chosen(x.Args[1]) && opts != nil {
				return x, opts
			}
		case slices.Contains(choosers, x.Name) && len(x.Args) > 0:
			if slices.ContainsFunc(x.Args, func(a hclsyntax.Expression) bool { return !c.global(a) }) {
				return nil, nil
			}
			// One argument it may return, known at load, is its value;
			// one not known is left as it is, text made of a parameter
			// rather than the parameter alone.
			opts := c.reachable(x)
			if len(opts) == 1 && c.knownAtLoad(opts[0]) || len(opts) > 1 && c.branchMatters(opts, parent) {
				return x, opts
			}
		}
	}
	return nil, nil
}

// knownAtLoad reports whether x's value is known at load.
func (c *compiler) knownAtLoad(x hclsyntax.Expression) bool {
	v, diags := x.Value(c.Eval)
	return !diags.HasErrors() && v.IsWhollyKnown()
}

// reachable returns the arguments whose value x, a call of try, coalesce
// or coalescelist, may have: those up to the first known at load (try
// stops at the first that does not fail, coalesce at the first that is
// neither null nor empty), without those coalesce skips (null or empty at
// load).
func (c *compiler) reachable(x *hclsyntax.FunctionCallExpr) []hclsyntax.Expression {
	var out []hclsyntax.Expression
	for _, a := range x.Args {
		v, diags := a.Value(c.Eval)
		known := !diags.HasErrors() && v.IsWhollyKnown()
		if known && x.Name != "try" {
			v, _ = v.UnmarkDeep()
			if v.IsNull() || v.Type() == cty.String && v.AsString() == "" || v.CanIterateElements() && v.LengthInt() == 0 {
				continue
			}
		}
		out = append(out, a)
		if known {
			break
		}
	}
	return out
}

// branchMatters reports whether the options of a choice made at a call
// may matter to the checks, so that the command is read as each: one is
// fixed at load and may be a flag (it starts with "-" or "+") or names a
// program whose arguments the checks read (see readProgram), or what
// holds the choice, parent, makes new text of it (strrev(["hs",
// "x"][param.n]), "s${...}").
func (c *compiler) branchMatters(options []hclsyntax.Expression, parent hclsyntax.Node) bool {
	if parent != nil && buildsText(parent) && !isChooser(parent) {
		return true
	}
	for _, o := range options {
		v, diags := o.Value(c.Eval)
		if diags.HasErrors() || !v.IsWhollyKnown() {
			continue
		}
		v, _ = v.UnmarkDeep()
		matters := false
		_ = cty.Walk(v, func(_ cty.Path, el cty.Value) (bool, error) {
			if !el.IsNull() && el.Type() == cty.String {
				s := el.AsString()
				matters = matters || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") || readProgram(strings.TrimSpace(s)) != ""
			}
			return !matters, nil
		})
		if matters {
			return true
		}
	}
	return false
}

// isChooser reports whether n is a call of a function whose value is
// one of its arguments' (see choosers), or element or lookup.
func isChooser(n hclsyntax.Node) bool {
	x, ok := n.(*hclsyntax.FunctionCallExpr)
	return ok && (x.Name == "element" || x.Name == "lookup" || slices.Contains(choosers, x.Name))
}

// global reports whether x refers only to the variables of the
// configuration, so that its value is the same for every item of a for
// expression around it.
func (c *compiler) global(x hclsyntax.Expression) bool {
	for _, tr := range x.Variables() {
		if _, ok := c.Eval.Variables[tr.RootName()]; !ok {
			return false
		}
	}
	anon := false
	hclsyntax.VisitAll(x, func(n hclsyntax.Node) hcl.Diagnostics {
		_, ok := n.(*hclsyntax.AnonSymbolExpr)
		anon = anon || ok
		return nil
	})
	return !anon
}

// variantsDiag refuses a command that makes more than maxVariants
// lists; at is the conditional or choice that goes past.
func variantsDiag(at hclsyntax.Expression, cmd hcl.Expression) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Too many conditionals in command",
		Detail: fmt.Sprintf("The command's conditionals and choices among fixed values (such as [\"-a\", \"-b\"][param.n]), made when the tool is called, make more than %d different command lists, "+
			"and each is checked for parameters inside scripts and in options that load code. "+
			"Split the tool into several tools, or use fewer conditionals, as in command = concat([\"rg\"], param.ignore_case ? [\"-i\"] : [], [\"--\", param.pattern]).",
			maxVariants),
		Subject:    at.Range().Ptr(),
		Expression: cmd,
	}
}

// replace returns x with the node old replaced by repl, copying the
// nodes on the way to it and sharing the others; x itself when old is not
// in it.
func replace(x, old, repl hclsyntax.Expression) hclsyntax.Expression {
	if x == nil {
		return nil
	}
	if x == old {
		return repl
	}
	changed := false
	sub := func(e hclsyntax.Expression) hclsyntax.Expression {
		r := replace(e, old, repl)
		changed = changed || r != e
		return r
	}
	subs := func(es []hclsyntax.Expression) []hclsyntax.Expression {
		out := make([]hclsyntax.Expression, len(es))
		for i, e := range es {
			out[i] = sub(e)
		}
		return out
	}
	var y hclsyntax.Expression
	switch x := x.(type) {
	case *hclsyntax.ParenthesesExpr:
		n := *x
		n.Expression = sub(x.Expression)
		y = &n
	case *hclsyntax.ConditionalExpr:
		n := *x
		n.Condition, n.TrueResult, n.FalseResult = sub(x.Condition), sub(x.TrueResult), sub(x.FalseResult)
		y = &n
	case *hclsyntax.FunctionCallExpr:
		n := *x
		n.Args = subs(x.Args)
		y = &n
	case *hclsyntax.TupleConsExpr:
		n := *x
		n.Exprs = subs(x.Exprs)
		y = &n
	case *hclsyntax.ObjectConsExpr:
		n := *x
		n.Items = make([]hclsyntax.ObjectConsItem, len(x.Items))
		for i, it := range x.Items {
			n.Items[i] = hclsyntax.ObjectConsItem{KeyExpr: sub(it.KeyExpr), ValueExpr: sub(it.ValueExpr)}
		}
		y = &n
	case *hclsyntax.ObjectConsKeyExpr:
		n := *x
		n.Wrapped = sub(x.Wrapped)
		y = &n
	case *hclsyntax.TemplateExpr:
		n := *x
		n.Parts = subs(x.Parts)
		y = &n
	case *hclsyntax.TemplateWrapExpr:
		n := *x
		n.Wrapped = sub(x.Wrapped)
		y = &n
	case *hclsyntax.TemplateJoinExpr:
		n := *x
		n.Tuple = sub(x.Tuple)
		y = &n
	case *hclsyntax.ForExpr:
		n := *x
		n.CollExpr, n.KeyExpr, n.ValExpr, n.CondExpr = sub(x.CollExpr), sub(x.KeyExpr), sub(x.ValExpr), sub(x.CondExpr)
		y = &n
	case *hclsyntax.SplatExpr:
		n := *x // Item, the symbol Each refers to, is shared
		n.Source, n.Each = sub(x.Source), sub(x.Each)
		y = &n
	case *hclsyntax.IndexExpr:
		n := *x
		n.Collection, n.Key = sub(x.Collection), sub(x.Key)
		y = &n
	case *hclsyntax.RelativeTraversalExpr:
		n := *x
		n.Source = sub(x.Source)
		y = &n
	case *hclsyntax.BinaryOpExpr:
		n := *x
		n.LHS, n.RHS = sub(x.LHS), sub(x.RHS)
		y = &n
	case *hclsyntax.UnaryOpExpr:
		n := *x
		n.Val = sub(x.Val)
		y = &n
	}
	if !changed {
		return x
	}
	return y
}

// scriptChecks works out the lists the command x may be at a call (see
// commandVariants) and their elements as the checks see them (see
// scriptArgs), and checks each for a parameter inside a script or
// passed to a batch file.
func (c *compiler) scriptChecks(x hcl.Expression) hcl.Diagnostics {
	c.variants = nil
	exprs := []hcl.Expression{x}
	if sx, ok := x.(hclsyntax.Expression); ok {
		vs, over := c.commandVariants(sx)
		if over != nil {
			return hcl.Diagnostics{variantsDiag(over, x)}
		}
		exprs = exprs[:0]
		for _, v := range vs {
			exprs = append(exprs, v)
		}
	}
	for _, v := range exprs {
		c.variants = append(c.variants, c.scriptArgs(v))
	}
	for _, args := range c.variants {
		if len(args) > 0 {
			if prog, ok := args[0].literal(); ok {
				if d := c.batchParams(args, prog, false); d != nil {
					return hcl.Diagnostics{d}
				}
			}
		}
		if d := c.scriptParams(args); d.HasErrors() {
			return d
		}
		if d := c.runParams(args); d.HasErrors() {
			return d
		}
	}
	return nil
}

// eachVariant runs check on the elements of each list the command may
// be at a call, and returns the errors of the first it refuses.
func (c *compiler) eachVariant(check func([]scriptArg) hcl.Diagnostics) hcl.Diagnostics {
	for _, args := range c.variants {
		if d := check(args); d.HasErrors() {
			return d
		}
	}
	return nil
}

// textListFuncs are the functions that make the elements of a list
// of the words or fields of a text.
var textListFuncs = []string{"split", "jsondecode", "yamldecode", "csvdecode", "regex", "regexall"}

// runProgram returns a program that x, a part of the command known only
// at a call, may hold and whose arguments the script and load checks read:
// an interpreter, a program with options that load code, or env; "" when
// it names none. The names are the strings written in x or computed from
// them at load (base64decode("c2g="), strrev("hs"), the item of
// [for s in param.l : "sh"]), each whole unless it is part of a template,
// and their words too where x makes elements of text (split, jsondecode).
func (c *compiler) runProgram(x hclsyntax.Expression) string {
	parts := map[hclsyntax.Node]bool{}
	words := false
	var nodes []hclsyntax.Expression
	hclsyntax.VisitAll(x, func(n hclsyntax.Node) hcl.Diagnostics {
		switch n := n.(type) {
		case *hclsyntax.TemplateExpr:
			for _, p := range n.Parts {
				parts[p] = true
			}
		case *hclsyntax.FunctionCallExpr:
			words = words || slices.Contains(textListFuncs, n.Name)
		}
		if e, ok := n.(hclsyntax.Expression); ok && len(e.Variables()) == 0 {
			nodes = append(nodes, e)
		}
		return nil
	})
	found := ""
	check := func(s string) {
		if found == "" {
			found = readProgram(s)
		}
	}
	for _, n := range nodes {
		if parts[n] && !words {
			continue
		}
		v, diags := n.Value(c.Eval)
		if diags.HasErrors() || !v.IsWhollyKnown() {
			continue
		}
		v, _ = v.UnmarkDeep()
		_ = cty.Walk(v, func(_ cty.Path, el cty.Value) (bool, error) {
			if el.IsNull() || el.Type() != cty.String {
				return true, nil
			}
			check(strings.TrimSpace(el.AsString()))
			if words {
				for _, w := range strings.FieldsFunc(el.AsString(), wordSep) {
					check(w)
				}
			}
			return true, nil
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// wordSep reports whether r separates the words of a text that may
// name a program.
func wordSep(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r))
}

// choosers are the functions whose value is one of the values of
// their arguments, chosen at a call, as element's is one of its list's
// and lookup's one of its map's or its default.
var choosers = []string{"try", "coalesce", "coalescelist"}

// readProgram returns name when it names a program whose arguments
// the script and load checks read: an interpreter, a program with options
// that load code, or env; "" otherwise.
func readProgram(name string) string {
	if _, ok := interpreterFor(name); ok {
		return name
	}
	if _, ok := loaderFor(name); ok {
		return name
	}
	return ""
}

// runParams refuses a list known only at a call, among args, that names a
// program whose arguments the checks read (see runProgram), when it makes
// text of a parameter or an answer or an element after it refers to one:
// which argument of the program the value is cannot be told at load, so it
// may be the script of an interpreter, the value of an option that loads
// code, or a variable env sets.
func (c *compiler) runParams(args []scriptArg) hcl.Diagnostics {
	for i, a := range args {
		if !a.run || a.expr == nil {
			continue
		}
		prog := c.runProgram(a.expr)
		if prog == "" {
			continue
		}
		from := i + 1
		if len(a.builtExprs) > 0 {
			from = i
		}
		for _, b := range args[from:] {
			if d := c.runProgramDiag(prog, b); d != nil {
				return hcl.Diagnostics{d}
			}
		}
	}
	return nil
}

// runProgramDiag refuses b, an element after a list known only at a call
// that may hold the program prog (see runParams), or that list, when it
// refers to a parameter or an answer.
func (c *compiler) runProgramDiag(prog string, b scriptArg) *hcl.Diagnostic {
	what, subject, expr := c.argRef(b)
	if what == "" {
		return nil
	}
	summary, role, example := "Parameter chooses the program", "a variable it sets, such as BASH_ENV or LD_PRELOAD", `command = ["env", "GREETING=${param.text}", "printenv", "GREETING"]`
	in, isInterpreter := interpreterFor(prog)
	l, isLoader := loaderFor(prog)
	switch {
	case programName(prog) == "env":
	case isInterpreter:
		summary, role, example = "Parameter inside a script", "its script, where it would run as code", in.readArg
		if _, fix, ok := strings.Cut(in.fix, "as in "); ok && example == "" {
			example = fix
		}
	case isLoader:
		summary, role, example = "Parameter chooses the code that runs", "the value of an option that loads code", l.example
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail: fmt.Sprintf("The list known only when the tool is called may run %s, which it names, and this part of the command refers to %s, "+
			"which may then be %s: which argument of %s a value is cannot be told at load. "+
			"Write %s and its arguments out as the elements of a list, declaring a tool for each program if the model is to choose, as in %s.",
			prog, what, role, prog, prog, example),
		Subject:    subject,
		Expression: expr,
	}
}
