package adapters

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// SensitiveNames are the names of the parameters marked sensitive, sorted.
func SensitiveNames(params map[string]ParamInfo) []string {
	var out []string
	for name, info := range params {
		if info.Sensitive {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// SensitiveParamValues returns the string forms of the named parameters'
// values in the call's evaluation context.
func SensitiveParamValues(ev *hcl.EvalContext, names []string) []string {
	if len(names) == 0 || ev == nil {
		return nil
	}
	params, ok := ev.Variables["param"]
	if !ok || params.IsNull() || !params.IsKnown() || !params.Type().IsObjectType() {
		return nil
	}
	var out []string
	for _, n := range names {
		if !params.Type().HasAttribute(n) {
			continue
		}
		out = appendStrings(out, params.GetAttr(n))
	}
	return out
}

// appendStrings adds the strings inside v (a string, or collections of them).
func appendStrings(out []string, v cty.Value) []string {
	if v.IsNull() || !v.IsKnown() {
		return out
	}
	switch {
	case v.Type() == cty.String:
		return append(out, v.AsString())
	case v.CanIterateElements():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = appendStrings(out, e)
		}
	}
	return out
}

// MarkedSensitive returns the keys of an object expression (headers or
// query) whose value calls sensitive(...).
func MarkedSensitive(expr hcl.Expression) map[string]bool {
	obj, ok := expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return nil
	}
	out := map[string]bool{}
	for _, item := range obj.Items {
		key, diags := item.KeyExpr.Value(nil)
		if diags.HasErrors() || key.Type() != cty.String || key.IsNull() {
			if kw := hcl.ExprAsKeyword(item.KeyExpr); kw != "" {
				key = cty.StringVal(kw)
			} else {
				continue
			}
		}
		if CallsSensitive(item.ValueExpr) {
			out[key.AsString()] = true
		}
	}
	return out
}

// CallsSensitive reports whether expr calls sensitive(...) anywhere.
func CallsSensitive(expr hcl.Expression) bool {
	marked := false
	visitSensitive(expr, func(*hclsyntax.FunctionCallExpr) { marked = true })
	return marked
}

// SensitiveArgs returns what expr passes to sensitive(...), wherever it
// calls it (inside concat, a template, a conditional): evaluated at a
// call, their values are hidden like secrets.
func SensitiveArgs(expr hcl.Expression) []hcl.Expression {
	var out []hcl.Expression
	visitSensitive(expr, func(call *hclsyntax.FunctionCallExpr) {
		if len(call.Args) > 0 {
			out = append(out, call.Args[0])
		}
	})
	return out
}

// SensitiveArgValues evaluates exprs (SensitiveArgs) in ectx and returns
// the values that are strings, or convert to one: the values a call must
// hide. An expression that does not evaluate hides nothing.
func SensitiveArgValues(ectx *hcl.EvalContext, exprs []hcl.Expression) []string {
	var out []string
	for _, x := range exprs {
		v, diags := x.Value(ectx)
		if diags.HasErrors() || !v.IsWhollyKnown() || v.IsNull() {
			continue
		}
		s, err := convert.Convert(Unmark(v), cty.String)
		if err == nil && !s.IsNull() && s.AsString() != "" {
			out = append(out, s.AsString())
		}
	}
	return out
}

// visitSensitive calls f for each call of sensitive(...) in expr.
func visitSensitive(expr hcl.Expression, f func(*hclsyntax.FunctionCallExpr)) {
	node, ok := expr.(hclsyntax.Node)
	if !ok {
		return
	}
	hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		if call, ok := n.(*hclsyntax.FunctionCallExpr); ok && call.Name == "sensitive" {
			f(call)
		}
		return nil
	})
}
