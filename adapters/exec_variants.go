package adapters

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// execMaxVariants caps the command lists a command with conditionals
// known only at a call is checked as (see commandVariants).
const execMaxVariants = 64

// commandVariants returns the command lists x may be at a call, as
// expressions: x with each conditional whose condition is known only at
// a call replaced by one of its branches, in every combination, so that
// the checks see what each branch puts in the list as if it were written
// out (concat(["env"], param.strict ? ["bash", "-e"] : ["bash"], ...)).
// A conditional whose condition refers to a for expression's symbol is
// left alone: its branch changes from one item to the next. It returns
// nil and the conditional that makes more than execMaxVariants lists.
func (c *execCompiler) commandVariants(x hclsyntax.Expression) ([]hclsyntax.Expression, *hclsyntax.ConditionalExpr) {
	var out []hclsyntax.Expression
	pending := []hclsyntax.Expression{x}
	for len(pending) > 0 {
		v := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		cond := c.openConditional(v)
		if cond == nil {
			out = append(out, v)
			continue
		}
		if b, known := c.condition(cond.Condition); known {
			branch := cond.FalseResult
			if b {
				branch = cond.TrueResult
			}
			pending = append(pending, execReplace(v, cond, branch))
			continue
		}
		if len(out)+len(pending)+2 > execMaxVariants {
			return nil, cond
		}
		pending = append(pending, execReplace(v, cond, cond.FalseResult), execReplace(v, cond, cond.TrueResult))
	}
	return out, nil
}

// openConditional returns the first conditional in x whose condition
// refers only to the variables of the configuration (param, answer),
// not to a symbol of a for expression or a splat; nil when there is none.
func (c *execCompiler) openConditional(x hclsyntax.Expression) *hclsyntax.ConditionalExpr {
	var found *hclsyntax.ConditionalExpr
	hclsyntax.VisitAll(x, func(n hclsyntax.Node) hcl.Diagnostics {
		if cx, ok := n.(*hclsyntax.ConditionalExpr); ok && found == nil && c.global(cx.Condition) {
			found = cx
		}
		return nil
	})
	return found
}

// global reports whether x refers only to the variables of the
// configuration, so that its value is the same for every item of a for
// expression around it.
func (c *execCompiler) global(x hclsyntax.Expression) bool {
	for _, tr := range x.Variables() {
		if _, ok := c.eval.Variables[tr.RootName()]; !ok {
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

// variantsDiag refuses a command that makes more than execMaxVariants
// lists; cond is the conditional that goes past.
func variantsDiag(cond *hclsyntax.ConditionalExpr, cmd hcl.Expression) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Too many conditionals in command",
		Detail: fmt.Sprintf("The command's conditionals, known only when the tool is called, make more than %d different command lists, "+
			"and each is checked for parameters inside scripts and in options that load code. "+
			"Split the tool into several tools, or use fewer conditionals, as in command = concat([\"rg\"], param.ignore_case ? [\"-i\"] : [], [\"--\", param.pattern]).",
			execMaxVariants),
		Subject:    cond.Range().Ptr(),
		Expression: cmd,
	}
}

// execReplace returns x with the node old replaced by repl, copying the
// nodes on the way to it and sharing the others; x itself when old is not
// in it.
func execReplace(x, old, repl hclsyntax.Expression) hclsyntax.Expression {
	if x == nil {
		return nil
	}
	if x == old {
		return repl
	}
	changed := false
	sub := func(e hclsyntax.Expression) hclsyntax.Expression {
		r := execReplace(e, old, repl)
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
// scriptArgs), and checks each for a parameter inside a script.
func (c *execCompiler) scriptChecks(x hcl.Expression) hcl.Diagnostics {
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
	for i, args := range c.variants {
		if d := c.scriptParams(args); d.HasErrors() {
			return d
		}
		if d := c.runParams(args, exprs[i]); d.HasErrors() {
			return d
		}
	}
	return nil
}

// eachVariant runs check on the elements of each list the command may
// be at a call, and returns the errors of the first it refuses.
func (c *execCompiler) eachVariant(check func([]scriptArg) hcl.Diagnostics) hcl.Diagnostics {
	for _, args := range c.variants {
		if d := check(args); d.HasErrors() {
			return d
		}
	}
	return nil
}

// execTextListFuncs are the functions that make the elements of a list
// of the words or fields of a text.
var execTextListFuncs = []string{"split", "jsondecode", "yamldecode", "csvdecode", "regex", "regexall"}

// runProgram returns a program that x, a part of the command known only
// at a call, may hold and whose arguments the script and load checks read:
// an interpreter, a program with options that load code, or env; "" when
// it names none. The names are the strings written in x or computed from
// them at load (base64decode("c2g="), strrev("hs"), the item of
// [for s in param.l : "sh"]), each whole unless it is part of a template,
// and their words too where x makes elements of text (split, jsondecode).
func (c *execCompiler) runProgram(x hclsyntax.Expression) string {
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
			words = words || slices.Contains(execTextListFuncs, n.Name)
		}
		if e, ok := n.(hclsyntax.Expression); ok && len(e.Variables()) == 0 {
			nodes = append(nodes, e)
		}
		return nil
	})
	found := ""
	check := func(s string) {
		if found == "" {
			found = execReadProgram(s)
		}
	}
	for _, n := range nodes {
		if parts[n] && !words {
			continue
		}
		v, diags := n.Value(c.eval)
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
				for _, w := range strings.FieldsFunc(el.AsString(), execWordSep) {
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

// execWordSep reports whether r separates the words of a text that may
// name a program.
func execWordSep(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r))
}

// execChoosers are the functions whose value is one of the values of
// their arguments, chosen at a call, as element's is one of its list's
// and lookup's one of its map's or its default.
var execChoosers = []string{"try", "coalesce", "coalescelist"}

// chosenProgram returns a program whose arguments the script and load
// checks read (see runProgram) that x, an element not known at load, may
// be by a choice made at a call among strings fixed at load:
// ["sh", "cat"][param.n], element(["sh", "cat"], param.n),
// lookup({ a = "sh" }, param.k, "cat"), try(param.l[0], "sh"); "" when
// there is none.
func (c *execCompiler) chosenProgram(x hcl.Expression) string {
	sx, ok := x.(hclsyntax.Expression)
	if !ok {
		return ""
	}
	var choices []hclsyntax.Expression
	hclsyntax.VisitAll(sx, func(n hclsyntax.Node) hcl.Diagnostics {
		switch n := n.(type) {
		case *hclsyntax.IndexExpr:
			choices = append(choices, n.Collection)
		case *hclsyntax.FunctionCallExpr:
			switch {
			case n.Name == "element" && len(n.Args) > 0:
				choices = append(choices, n.Args[0])
			case n.Name == "lookup" && len(n.Args) > 0:
				choices = append(choices, n.Args[0]) // and the default
				choices = append(choices, n.Args[min(2, len(n.Args)):]...)
			case slices.Contains(execChoosers, n.Name):
				choices = append(choices, n.Args...)
			}
		case *hclsyntax.ConditionalExpr:
			// Left by commandVariants: its condition refers to a for
			// expression's symbol.
			choices = append(choices, n.TrueResult, n.FalseResult)
		}
		return nil
	})
	for _, ch := range choices {
		v, diags := ch.Value(c.eval)
		if diags.HasErrors() || !v.IsWhollyKnown() {
			continue
		}
		v, _ = v.UnmarkDeep()
		found := ""
		_ = cty.Walk(v, func(_ cty.Path, el cty.Value) (bool, error) {
			if found == "" && !el.IsNull() && el.Type() == cty.String {
				found = execReadProgram(strings.TrimSpace(el.AsString()))
			}
			return found == "", nil
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// execReadProgram returns name when it names a program whose arguments
// the script and load checks read: an interpreter, a program with options
// that load code, or env; "" otherwise.
func execReadProgram(name string) string {
	if _, ok := execInterpreterFor(name); ok {
		return name
	}
	if _, ok := execLoaderFor(name); ok {
		return name
	}
	return ""
}

// runParams refuses a part of the command, x's value as args, that may
// be a program whose arguments the checks read when an element after it
// refers to a parameter or an answer: which argument of the program the
// value is cannot be told at load, so it may be the script of an
// interpreter, the value of an option that loads code, or a variable env
// sets. Such a part is a list known only at a call that names the program
// (see runProgram), counting text it makes itself, or an element chosen
// at a call among fixed strings that holds its name (see chosenProgram);
// where the elements are not written out, the first that is not known at
// load stands for any.
func (c *execCompiler) runParams(args []scriptArg, x hcl.Expression) hcl.Diagnostics {
	unwritten := false
	for i, a := range args {
		var prog, holder string
		from := i + 1
		switch {
		case a.run && a.expr != nil:
			prog, holder = c.runProgram(a.expr), "The list known only when the tool is called"
			if len(a.builtExprs) > 0 {
				from = i
			}
		case a.run || a.known():
			continue
		case a.expr != nil:
			prog, holder = c.chosenProgram(a.expr), "This element, chosen when the tool is called,"
		case !unwritten:
			unwritten = true
			prog, holder = c.chosenProgram(x), "An element chosen when the tool is called"
		}
		if prog == "" {
			continue
		}
		for _, b := range args[from:] {
			if d := c.runProgramDiag(prog, holder, b); d != nil {
				return hcl.Diagnostics{d}
			}
		}
	}
	return nil
}

// runProgramDiag refuses b, an element after a part of the command that
// may be the program prog (see runParams), when it refers to a parameter
// or an answer; holder names that part for the message.
func (c *execCompiler) runProgramDiag(prog, holder string, b scriptArg) *hcl.Diagnostic {
	what, subject, expr := c.argRef(b)
	if what == "" {
		return nil
	}
	summary, role, example := "Parameter chooses the program", "a variable it sets, such as BASH_ENV or LD_PRELOAD", `command = ["env", "GREETING=${param.text}", "printenv", "GREETING"]`
	in, isInterpreter := execInterpreterFor(prog)
	l, isLoader := execLoaderFor(prog)
	switch {
	case execProgramName(prog) == "env":
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
		Detail: fmt.Sprintf("%s may run %s, which it names, and this part of the command refers to %s, "+
			"which may then be %s: which argument of %s a value is cannot be told at load. "+
			"Write %s and its arguments out as the elements of a list, declaring a tool for each program if the model is to choose, as in %s.",
			holder, prog, what, role, prog, prog, example),
		Subject:    subject,
		Expression: expr,
	}
}
