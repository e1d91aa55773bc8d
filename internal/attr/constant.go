package attr

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// NotConstant is the summary of the error for an argument that must be
// fixed when the config loads and is not: it refers to something known
// only later, such as a call's parameters.
const NotConstant = "Argument must be constant"

// NotConstantError is the error for an argument that must be constant and
// is not, at subject, with detail saying why and what to write instead.
func NotConstantError(subject hcl.Range, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  NotConstant,
		Detail:   detail,
		Subject:  subject.Ptr(),
	}
}

// Constant evaluates a, an argument of the config's own blocks that must
// not refer to any variable, in ctx (functions only), and converts it to
// want. It returns cty.NilVal with diagnostics on failure, a null value
// included.
func Constant(a *hcl.Attribute, ctx *hcl.EvalContext, want cty.Type) (cty.Value, hcl.Diagnostics) {
	if vars := a.Expr.Variables(); len(vars) > 0 {
		root := vars[0].RootName()
		detail := fmt.Sprintf("The value of %s is fixed when the config is loaded, so it cannot refer to %s. Use a literal value or a function of environment variables, such as env(\"NAME\", \"default\").", a.Name, root)
		// A bare word, as in description = Greetings: text without quotes.
		if st, ok := a.Expr.(*hclsyntax.ScopeTraversalExpr); ok && len(st.Traversal) == 1 {
			detail = fmt.Sprintf("The value of %s is fixed when the config is loaded, so it cannot refer to %s. If %s is text, write it in double quotes: %s = %q.", a.Name, root, root, a.Name, root)
		}
		return cty.NilVal, hcl.Diagnostics{NotConstantError(vars[0].SourceRange(), detail)}
	}
	v, diags := a.Expr.Value(ctx)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	cv, err := convert.Convert(v, want)
	if err != nil {
		// cty's message for a whole value ("a number is required") only
		// repeats what is wanted: say what the value is instead.
		detail := fmt.Sprintf("%s must be %s, and this is %s.", a.Name, WantName(want), TypeName(v.Type()))
		if pe, ok := err.(cty.PathError); ok && len(pe.Path) > 0 {
			detail = fmt.Sprintf("%s must be %s: %s.", a.Name, WantName(want), err)
		}
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Wrong type for " + a.Name,
			Detail:   detail,
			Subject:  a.Expr.Range().Ptr(),
		}}
	}
	if cv.IsNull() {
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Missing value for " + a.Name,
			Detail:   fmt.Sprintf("%s is null; give it a value or remove the attribute.", a.Name),
			Subject:  a.Expr.Range().Ptr(),
		}}
	}
	return cv, nil
}

// Fixed evaluates a, an argument of a backend block that is fixed when the
// config loads, in ctx, the backend's compile-time context: it may call
// functions but not refer to the call's parameters (root "param"), and its
// value must be known. example is a constant value to offer instead, as
// `"30s"`. The value is returned unmarked and may be null; ok is false
// when there were errors.
func Fixed(a *hcl.Attribute, ctx *hcl.EvalContext, example string) (v cty.Value, diags hcl.Diagnostics, ok bool) {
	for _, tr := range a.Expr.Variables() {
		if tr.RootName() != "param" {
			continue
		}
		rng := tr.SourceRange()
		if len(tr) > 1 {
			rng = hcl.RangeBetween(tr[0].SourceRange(), tr[1].SourceRange())
		}
		d := NotConstantError(rng, fmt.Sprintf("The %s argument is fixed when the config loads, so it cannot refer to parameters. "+
			"Write a constant value, such as %s = %s.", a.Name, a.Name, example))
		d.Expression = a.Expr
		diags = append(diags, d)
	}
	if diags.HasErrors() {
		return cty.DynamicVal, diags, false
	}
	v, diags = a.Expr.Value(ctx)
	if diags.HasErrors() {
		return cty.DynamicVal, diags, false
	}
	if !v.IsWhollyKnown() {
		d := NotConstantError(a.Expr.Range(), fmt.Sprintf("The %s argument must be known when the config loads, and this expression is only known later. "+
			"Write a constant value, such as %s = %s.", a.Name, a.Name, example))
		d.Expression = a.Expr
		return cty.DynamicVal, append(diags, d), false
	}
	v, _ = v.UnmarkDeep()
	return v, diags, true
}
