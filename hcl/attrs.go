package hcl

import (
	"fmt"
	"math"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// constant evaluates an attribute that must not depend on call arguments and
// converts it to want. It returns cty.NilVal with diagnostics on failure.
func constant(attr *hcl.Attribute, ctx *hcl.EvalContext, want cty.Type) (cty.Value, hcl.Diagnostics) {
	if vars := attr.Expr.Variables(); len(vars) > 0 {
		detail := fmt.Sprintf("The value of %s is fixed when the config is loaded, so it cannot refer to %s. Use a literal value or a function of environment variables, such as env(\"NAME\", \"default\").", attr.Name, vars[0].RootName())
		// A bare word, as in description = Greetings: text without quotes.
		if st, ok := attr.Expr.(*hclsyntax.ScopeTraversalExpr); ok && len(st.Traversal) == 1 {
			detail = fmt.Sprintf("The value of %s is fixed when the config is loaded, so it cannot refer to %s. If %s is text, write it in double quotes: %s = %q.", attr.Name, vars[0].RootName(), vars[0].RootName(), attr.Name, vars[0].RootName())
		}
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Value must be constant",
			Detail:   detail,
			Subject:  vars[0].SourceRange().Ptr(),
		}}
	}
	v, diags := attr.Expr.Value(ctx)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	cv, err := convert.Convert(v, want)
	if err != nil {
		// cty's message for a whole value ("a number is required") only
		// repeats what is wanted: say what the value is instead.
		detail := fmt.Sprintf("%s must be %s, and this is %s.", attr.Name, friendlyCtyType(want), typePhrase(v.Type()))
		if pe, ok := err.(cty.PathError); ok && len(pe.Path) > 0 {
			detail = fmt.Sprintf("%s must be %s: %s.", attr.Name, friendlyCtyType(want), err)
		}
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Wrong type for " + attr.Name,
			Detail:   detail,
			Subject:  attr.Expr.Range().Ptr(),
		}}
	}
	if cv.IsNull() {
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Missing value for " + attr.Name,
			Detail:   fmt.Sprintf("%s is null; give it a value or remove the attribute.", attr.Name),
			Subject:  attr.Expr.Range().Ptr(),
		}}
	}
	return cv, nil
}

// stringAttr reads an optional constant string attribute.
func stringAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst *string) hcl.Diagnostics {
	attr, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := constant(attr, ctx, cty.String)
	if !diags.HasErrors() {
		*dst = v.AsString()
	}
	return diags
}

// boolAttr reads an optional constant bool attribute.
func boolAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst *bool) hcl.Diagnostics {
	attr, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := constant(attr, ctx, cty.Bool)
	if !diags.HasErrors() {
		*dst = v.True()
	}
	return diags
}

// boolPtrAttr reads an optional constant bool attribute into a pointer, left
// nil when the attribute is absent.
func boolPtrAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst **bool) hcl.Diagnostics {
	if _, ok := attrs[name]; !ok {
		return nil
	}
	var b bool
	diags := boolAttr(attrs, name, ctx, &b)
	if !diags.HasErrors() {
		*dst = &b
	}
	return diags
}

// numberAttr reads an optional constant number attribute.
func numberAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst **float64) hcl.Diagnostics {
	attr, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := constant(attr, ctx, cty.Number)
	if !diags.HasErrors() {
		f, _ := v.AsBigFloat().Float64()
		if math.IsInf(f, 0) || (f == 0 && v.AsBigFloat().Sign() != 0) {
			return append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid " + name,
				Detail:   fmt.Sprintf("%s is beyond what a 64-bit number holds (0, or a magnitude from 4.9e-324 to 1.8e308), so no client could read it in a schema. Write a smaller number, or remove %s for no bound.", name, name),
				Subject:  attr.Expr.Range().Ptr(),
			})
		}
		*dst = &f
	}
	return diags
}

// countAttr reads an optional constant non-negative whole number.
func countAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst **int) hcl.Diagnostics {
	attr, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := constant(attr, ctx, cty.Number)
	if diags.HasErrors() {
		return diags
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if acc != big.Exact || i < 0 || i > 1<<31 {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid " + name,
			Detail:   fmt.Sprintf("%s must be a whole number from 0 up, such as 1 or 100.", name),
			Subject:  attr.Expr.Range().Ptr(),
		}}
	}
	n := int(i)
	*dst = &n
	return nil
}

// friendlyCtyType names a cty type as a config author writes it.
func friendlyCtyType(t cty.Type) string {
	switch {
	case t == cty.String:
		return "a string"
	case t == cty.Number:
		return "a number"
	case t == cty.Bool:
		return "true or false"
	}
	return t.FriendlyName()
}

// stringListAttr decodes an optional constant list of strings.
func stringListAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst *[]string) hcl.Diagnostics {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := constant(a, ctx, cty.List(cty.String))
	if diags.HasErrors() || v.IsNull() {
		return diags
	}
	for _, e := range v.AsValueSlice() {
		if e.IsNull() {
			return append(diags, rangeDiag(a, "Null in "+name, name+" is a list of strings, and one of them is null."))
		}
		*dst = append(*dst, e.AsString())
	}
	return diags
}
