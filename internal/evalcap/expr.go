package evalcap

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Expr returns expr ready to be evaluated under a Budget: a copy in which
// each for expression (a template's %{ for } too) charges its iterations
// to the Budget before it runs, and the value of each iteration once it is
// built, and stops at once when the Budget is spent. Nodes with no for
// expression below them are shared with expr, which is not changed. The
// copy is for evaluating only: walk and analyse expr (the nodes that wrap
// a loop's parts hide them from walkers). Without a Budget in force the
// copy evaluates as expr does.
func Expr(expr hcl.Expression) hcl.Expression {
	se, ok := expr.(hclsyntax.Expression)
	if !ok {
		return expr
	}
	out, _ := bound(se)
	return out
}

// HasLoops reports whether expr has a for expression.
func HasLoops(expr hcl.Expression) bool {
	se, ok := expr.(hclsyntax.Expression)
	if !ok {
		return false
	}
	found := false
	_ = hclsyntax.VisitAll(se, func(n hclsyntax.Node) hcl.Diagnostics {
		if _, ok := n.(*hclsyntax.ForExpr); ok {
			found = true
		}
		return nil
	})
	return found
}

// bound returns e with its for expressions wrapped, and whether that
// changed anything. Only the nodes on the way to a for expression are
// copied. It is long because it has a case for each kind of node that can
// hold an expression, each the same few lines: copy the node, set its
// children.
func bound(e hclsyntax.Expression) (hclsyntax.Expression, bool) {
	switch x := e.(type) {
	case *hclsyntax.ForExpr:
		c := *x
		c.CollExpr, _ = bound(x.CollExpr)
		c.CollExpr = &loopColl{Expression: c.CollExpr}
		c.ValExpr, _ = bound(x.ValExpr)
		c.ValExpr = &loopValue{Expression: c.ValExpr}
		if x.KeyExpr != nil {
			c.KeyExpr, _ = bound(x.KeyExpr)
		}
		if x.CondExpr != nil {
			c.CondExpr, _ = bound(x.CondExpr)
		}
		return &loopExpr{ForExpr: &c}, true
	case *hclsyntax.TemplateExpr:
		parts, changed := boundAll(x.Parts)
		if !changed {
			return e, false
		}
		c := *x
		c.Parts = parts
		return &c, true
	case *hclsyntax.TemplateWrapExpr:
		w, changed := bound(x.Wrapped)
		if !changed {
			return e, false
		}
		c := *x
		c.Wrapped = w
		return &c, true
	case *hclsyntax.TemplateJoinExpr:
		w, changed := bound(x.Tuple)
		if !changed {
			return e, false
		}
		// The loop of a template's %{ for } gives the tuple that
		// TemplateJoinExpr takes, and nothing else: never a list.
		if l, ok := w.(*loopExpr); ok {
			l.tuple = true
		}
		c := *x
		c.Tuple = w
		return &c, true
	case *hclsyntax.FunctionCallExpr:
		args, changed := boundAll(x.Args)
		if !changed {
			return e, false
		}
		c := *x
		c.Args = args
		return &c, true
	case *hclsyntax.TupleConsExpr:
		exprs, changed := boundAll(x.Exprs)
		if !changed {
			return e, false
		}
		c := *x
		c.Exprs = exprs
		return &c, true
	case *hclsyntax.ObjectConsExpr:
		items := make([]hclsyntax.ObjectConsItem, len(x.Items))
		changed := false
		for i, it := range x.Items {
			k, kc := bound(it.KeyExpr)
			v, vc := bound(it.ValueExpr)
			items[i] = hclsyntax.ObjectConsItem{KeyExpr: k, ValueExpr: v}
			changed = changed || kc || vc
		}
		if !changed {
			return e, false
		}
		c := *x
		c.Items = items
		return &c, true
	case *hclsyntax.ObjectConsKeyExpr:
		w, changed := bound(x.Wrapped)
		if !changed {
			return e, false
		}
		c := *x
		c.Wrapped = w
		return &c, true
	case *hclsyntax.ConditionalExpr:
		parts, changed := boundAll([]hclsyntax.Expression{x.Condition, x.TrueResult, x.FalseResult})
		if !changed {
			return e, false
		}
		c := *x
		c.Condition, c.TrueResult, c.FalseResult = parts[0], parts[1], parts[2]
		return &c, true
	case *hclsyntax.BinaryOpExpr:
		parts, changed := boundAll([]hclsyntax.Expression{x.LHS, x.RHS})
		if !changed {
			return e, false
		}
		// A list is never equal to a tuple: a loop compared with == or !=
		// stays a tuple, as it is written.
		if x.Op == hclsyntax.OpEqual || x.Op == hclsyntax.OpNotEqual {
			for _, p := range parts {
				if l, ok := p.(*loopExpr); ok {
					l.tuple = true
				}
			}
		}
		c := *x
		c.LHS, c.RHS = parts[0], parts[1]
		return &c, true
	case *hclsyntax.UnaryOpExpr:
		v, changed := bound(x.Val)
		if !changed {
			return e, false
		}
		c := *x
		c.Val = v
		return &c, true
	case *hclsyntax.IndexExpr:
		parts, changed := boundAll([]hclsyntax.Expression{x.Collection, x.Key})
		if !changed {
			return e, false
		}
		c := *x
		c.Collection, c.Key = parts[0], parts[1]
		return &c, true
	case *hclsyntax.RelativeTraversalExpr:
		s, changed := bound(x.Source)
		if !changed {
			return e, false
		}
		c := *x
		c.Source = s
		return &c, true
	case *hclsyntax.ParenthesesExpr:
		w, changed := bound(x.Expression)
		if !changed {
			return e, false
		}
		c := *x
		c.Expression = w
		return &c, true
	case *hclsyntax.SplatExpr:
		// Each refers to Item, the symbol the splat sets for each element:
		// only the source is copied, so that they stay one.
		s, changed := bound(x.Source)
		if !changed {
			return e, false
		}
		c := *x
		c.Source = s
		return &c, true
	}
	return e, false
}

func boundAll(es []hclsyntax.Expression) ([]hclsyntax.Expression, bool) {
	var out []hclsyntax.Expression
	for i, e := range es {
		b, changed := bound(e)
		if changed && out == nil {
			out = make([]hclsyntax.Expression, len(es))
			copy(out, es)
		}
		if out != nil {
			out[i] = b
		}
	}
	if out == nil {
		return es, false
	}
	return out, true
}

// loopExpr is a for expression. Once a Budget is spent, its value is
// unknown, whatever the iterations before gave. A tuple whose elements
// are all of one type becomes a list: cty converts a tuple to a list (as
// join and the other functions that take lists do with it) in a time that
// grows with the square of its length, a list to a list at once.
type loopExpr struct {
	*hclsyntax.ForExpr
	// tuple keeps a tuple a tuple.
	tuple bool
}

func (e *loopExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	b := budgetOf(ctx)
	if b == nil {
		return e.ForExpr.Value(ctx)
	}
	if b.err != nil {
		return cty.DynamicVal, nil
	}
	v, diags := e.ForExpr.Value(ctx)
	if b.err != nil {
		return cty.DynamicVal, nil
	}
	if e.tuple {
		return v, diags
	}
	return tupleAsList(v), diags
}

// tupleAsList is v as a list when it is a tuple whose elements are all of
// one type, other than the dynamic pseudo-type; otherwise v.
func tupleAsList(v cty.Value) cty.Value {
	uv, marks := v.Unmark()
	ty := uv.Type()
	if !ty.IsTupleType() || !uv.IsKnown() || uv.IsNull() {
		return v
	}
	etys := ty.TupleElementTypes()
	if len(etys) == 0 || etys[0] == cty.DynamicPseudoType {
		return v
	}
	for _, et := range etys[1:] {
		if !et.Equals(etys[0]) {
			return v
		}
	}
	return cty.ListVal(uv.AsValueSlice()).WithMarks(marks)
}

// loopColl is the collection of a for expression: it charges the
// iterations to come.
type loopColl struct{ hclsyntax.Expression }

func (e *loopColl) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	b := budgetOf(ctx)
	if b == nil {
		return e.Expression.Value(ctx)
	}
	// A spent Budget ends the loop with no diagnostic of its own: the
	// evaluation's error is the Budget's, once, not one per iteration of
	// the loops around.
	if b.err != nil {
		return cty.DynamicVal, nil
	}
	v, diags := e.Expression.Value(ctx)
	if b.err != nil {
		return cty.DynamicVal, nil
	}
	if uv, _ := v.Unmark(); uv.IsKnown() && !uv.IsNull() && uv.CanIterateElements() {
		if b.iterate(int64(uv.LengthInt())) != nil {
			return cty.DynamicVal, nil
		}
	}
	return v, diags
}

// loopValue is the value of each iteration of a for expression: it
// charges what the iteration built.
type loopValue struct{ hclsyntax.Expression }

func (e *loopValue) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	b := budgetOf(ctx)
	if b == nil {
		return e.Expression.Value(ctx)
	}
	if b.err != nil {
		return cty.DynamicVal, nil
	}
	v, diags := e.Expression.Value(ctx)
	if b.err != nil || b.build("a for expression", Size(v, b.maxValue)) != nil {
		return cty.DynamicVal, nil
	}
	return v, diags
}
