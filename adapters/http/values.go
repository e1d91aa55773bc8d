package http

import (
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// value is an expression evaluated once when constant, else per call.
type value struct {
	expr  hcl.Expression
	what  string // for messages: "url", `header "Accept"`, ...
	known bool
	val   cty.Value
	// param is the parameter expr is, when it is param.<name> alone
	// (as in "${param.id}"): see paramValue.
	param string
}

// newValue wraps expr whose compile-time value is val.
func newValue(expr hcl.Expression, val cty.Value, what string) *value {
	v := &value{expr: expr, what: what}
	if !refsParam(expr) && val.IsWhollyKnown() {
		v.known = true
		v.val = adapters.Unmark(val)
	}
	if st, ok := expr.(*hclsyntax.ScopeTraversalExpr); ok && len(st.Traversal) == 2 && st.Traversal.RootName() == paramRoot {
		if step, ok := st.Traversal[1].(hcl.TraverseAttr); ok {
			v.param = step.Name
		}
	}
	return v
}

// paramValue is the value of the parameter name in ev, read as HCL's
// traversal of param.<name> reads it, without the walk through HCL's
// and cty's general steps (each call evaluates a url's parameters); ok
// is false when the value is not a known object with that attribute,
// which the traversal then evaluates, and explains.
func paramValue(ev *hcl.EvalContext, name string) (cty.Value, bool) {
	for c := ev; c != nil; c = c.Parent() {
		params, found := c.Variables[paramRoot]
		if !found {
			continue
		}
		if params.IsMarked() || !params.IsKnown() || params.IsNull() || !params.Type().IsObjectType() || !params.Type().HasAttribute(name) {
			return cty.NilVal, false
		}
		return params.GetAttr(name), true
	}
	return cty.NilVal, false
}

// plain reports whether evaluating v for a call needs no Budget: it is
// constant, or its expression calls no function and has no for
// expression (see adapters.PlainExprs).
func (v *value) plain() bool {
	return v == nil || v.known || adapters.PlainExprs(v.expr)
}

// unmark returns val without its marks (adapters.Unmark).

// eval returns the value for a call.
func (v *value) eval(ev *hcl.EvalContext) (cty.Value, error) {
	if v.known {
		return v.val, nil
	}
	val, ok := cty.NilVal, false
	if v.param != "" {
		val, ok = paramValue(ev, v.param)
	}
	if !ok {
		var diags hcl.Diagnostics
		if val, diags = v.expr.Value(ev); diags.HasErrors() {
			return cty.NilVal, diagsError(v.what, diags)
		}
	}
	val = adapters.Unmark(val)
	if !val.IsWhollyKnown() {
		return cty.NilVal, fmt.Errorf("%s: the value is not known", v.what)
	}
	return val, nil
}

// diagsError turns evaluation errors into one error.
func diagsError(what string, diags hcl.Diagnostics) error {
	return fmt.Errorf("evaluating %s: %s", what, adapters.EvalMessage(diags))
}

// checkScalarType reports whether values of ty can become text: strings,
// numbers and bools, and with lists also lists, sets and tuples of them.
func checkScalarType(ty cty.Type, lists bool) error {
	switch {
	case ty == cty.DynamicPseudoType, ty.IsPrimitiveType():
		return nil
	case lists && (ty.IsListType() || ty.IsSetType()):
		return checkScalarType(ty.ElementType(), false)
	case lists && ty.IsTupleType():
		for _, et := range ty.TupleElementTypes() {
			if err := checkScalarType(et, false); err != nil {
				return err
			}
		}
		return nil
	}
	if lists {
		return fmt.Errorf("must be a string, number, bool or a list of them, not %s", attr.TypeName(ty))
	}
	return fmt.Errorf("must be a string, number or bool, not %s", attr.TypeName(ty))
}

// valueString converts a known, non-null primitive value to a string.
func valueString(v cty.Value) (string, error) {
	v = adapters.Unmark(v)
	if !v.Type().IsPrimitiveType() && v.Type() != cty.DynamicPseudoType {
		return "", fmt.Errorf("must be a string, number or bool, not %s", attr.TypeName(v.Type()))
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", fmt.Errorf("must be a string, number or bool, not %s", attr.TypeName(v.Type()))
	}
	if s.IsNull() || !s.IsKnown() {
		return "", errors.New("the value is null")
	}
	return s.AsString(), nil
}

// valueStrings converts a value to the strings it stands for: none for
// null, one for a primitive, one per non-null element for a list when lists
// is set.
func valueStrings(v cty.Value, lists bool) ([]string, error) {
	v = adapters.Unmark(v)
	if v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	if lists && (ty.IsListType() || ty.IsSetType() || ty.IsTupleType()) {
		var out []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.IsNull() {
				continue
			}
			s, err := valueString(e)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	if err := checkScalarType(ty, lists); err != nil {
		return nil, err
	}
	s, err := valueString(v)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}
