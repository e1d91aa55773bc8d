package hcl

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/internal/attr"
)

// stringAttr reads an optional constant string attribute.
func stringAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst *string) hcl.Diagnostics {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := attr.Constant(a, ctx, cty.String)
	if !diags.HasErrors() {
		*dst = v.AsString()
	}
	return diags
}

// boolAttr reads an optional constant bool attribute.
func boolAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst *bool) hcl.Diagnostics {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := attr.Constant(a, ctx, cty.Bool)
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

// durationAttr reads an optional constant duration attribute in r. An
// empty string leaves dst as it is, as an absent attribute does.
func durationAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, r attr.DurationRange, dst *time.Duration) hcl.Diagnostics {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := attr.Constant(a, ctx, cty.String)
	if diags.HasErrors() || v.AsString() == "" {
		return diags
	}
	d, dd := attr.Duration(a, v, r)
	if !dd.HasErrors() {
		*dst = d
	}
	return append(diags, dd...)
}

// numberAttr reads an optional constant number attribute.
func numberAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst **float64) hcl.Diagnostics {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := attr.Constant(a, ctx, cty.Number)
	if !diags.HasErrors() {
		f, _ := v.AsBigFloat().Float64()
		if math.IsInf(f, 0) || (f == 0 && v.AsBigFloat().Sign() != 0) {
			return append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid " + name,
				Detail:   fmt.Sprintf("%s is beyond what a 64-bit number holds (0, or a magnitude from 4.9e-324 to 1.8e308), so no client could read it in a schema. Write a smaller number, or remove %s for no bound.", name, name),
				Subject:  a.Expr.Range().Ptr(),
			})
		}
		*dst = &f
	}
	return diags
}

// countAttr reads an optional constant non-negative whole number.
func countAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst **int) hcl.Diagnostics {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := attr.Constant(a, ctx, cty.Number)
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
			Subject:  a.Expr.Range().Ptr(),
		}}
	}
	n := int(i)
	*dst = &n
	return nil
}

// stringListAttr decodes an optional constant list of strings.
func stringListAttr(attrs hcl.Attributes, name string, ctx *hcl.EvalContext, dst *[]string) hcl.Diagnostics {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	v, diags := attr.Constant(a, ctx, cty.List(cty.String))
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
