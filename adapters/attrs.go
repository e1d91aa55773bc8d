package adapters

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/suggest"
)

// Attrs reads the attributes of a backend block that are fixed when the
// configuration loads (durations, sizes, switches, names), with the
// wording of internal/attr, and checks the parameter references of those
// that may use parameters, with the "Did you mean" of internal/suggest.
// It holds the block's context, so that exec and template read each
// attribute in one call.
type Attrs struct {
	// CC is what the block's Compile was given.
	CC *CompileContext
	// Eval is the compile-time evaluation context (CC.Eval, or an empty
	// one when it is nil).
	Eval *hcl.EvalContext
	// names are the declared parameters, sorted (see ParamNames).
	names []string
}

// NewAttrs returns the Attrs of a block compiled with cc.
func NewAttrs(cc *CompileContext) Attrs {
	a := Attrs{CC: cc, Eval: cc.Eval}
	if a.Eval == nil {
		a.Eval = &hcl.EvalContext{}
	}
	return a
}

// ParamNames lists the declared parameters, sorted; worked out once.
func (c *Attrs) ParamNames() []string {
	if c.names == nil {
		c.names = slices.Sorted(maps.Keys(c.CC.Params))
	}
	return c.names
}

// Undeclared reports references to parameters that are not declared, with
// a suggestion.
func (c *Attrs) Undeclared(expr hcl.Expression) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, tr := range expr.Variables() {
		name, ok := ParamName(tr)
		if !ok || name == "" {
			continue
		}
		if _, declared := c.CC.Params[name]; declared {
			continue
		}
		detail := fmt.Sprintf("This tool has no parameter named %q.", name)
		if s := suggest.Closest(name, c.ParamNames()); s != "" {
			detail += fmt.Sprintf(" Did you mean %q?", s)
		} else if names := c.ParamNames(); len(names) > 0 {
			detail += fmt.Sprintf(" Its parameters are %s.", QuoteList(names))
		} else {
			detail += " It declares no parameters."
		}
		detail += fmt.Sprintf(" Add a param %q block to the tool, or correct the name.", name)
		rng := hcl.RangeBetween(tr[0].SourceRange(), tr[1].SourceRange())
		diags = append(diags, &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Reference to undeclared parameter",
			Detail:     detail,
			Subject:    &rng,
			Expression: expr,
		})
	}
	return diags
}

// Value evaluates expr with the compile-time context, after checking its
// parameter references.
func (c *Attrs) Value(expr hcl.Expression) (cty.Value, hcl.Diagnostics) {
	if diags := c.Undeclared(expr); diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	return expr.Value(c.Eval)
}

// Constant evaluates the expression of an attribute that must not depend on
// arguments (attr.Fixed), and refuses a null one. ok is false when
// diagnostics were reported.
func (c *Attrs) Constant(a *hcl.Attribute, example string) (cty.Value, hcl.Diagnostics, bool) {
	v, diags, ok := attr.Fixed(a, c.Eval, example)
	if !ok {
		return cty.DynamicVal, diags, false
	}
	if v.IsNull() {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Invalid %s", a.Name),
			Detail: fmt.Sprintf("The %s argument is null. Write a value, such as %s = %s, or remove the argument to use the default.",
				a.Name, a.Name, example),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
		return cty.DynamicVal, diags, false
	}
	return v, diags, true
}

// Duration reads a constant duration attribute in r (attr.Duration).
func (c *Attrs) Duration(a *hcl.Attribute, r attr.DurationRange) (time.Duration, hcl.Diagnostics, bool) {
	v, diags, ok := c.Constant(a, r.Example)
	if !ok {
		return 0, diags, false
	}
	d, dd := attr.Duration(a, v, r)
	return d, append(diags, dd...), !dd.HasErrors()
}

// ByteCount reads a constant size in bytes, from 1 to max (maxText says it
// in MiB), as max_output is written in exec and template blocks
// (attr.Bytes).
func (c *Attrs) ByteCount(a *hcl.Attribute, max int, maxText string) (int, hcl.Diagnostics, bool) {
	v, diags, ok := c.Constant(a, "1048576")
	if !ok {
		return 0, diags, false
	}
	n, dd := attr.Bytes(a, v, max, maxText)
	return n, append(diags, dd...), !dd.HasErrors()
}

// Boolean decodes a constant true/false argument into dst.
func (c *Attrs) Boolean(a *hcl.Attribute, dst *bool, fix string) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, "true")
	if !ok {
		return diags
	}
	bv, err := convert.Convert(v, cty.Bool)
	if err != nil {
		return append(diags, &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Invalid " + a.Name,
			Detail:     fmt.Sprintf("The %s argument must be true or false, and this is %s. %s", a.Name, attr.TypeName(v.Type()), fix),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	*dst = bv.True()
	return diags
}

// ParamName returns the parameter a traversal refers to. ok is
// false for other variables; name is "" for the whole param object.
func ParamName(tr hcl.Traversal) (name string, ok bool) {
	if tr.RootName() != "param" {
		return "", false
	}
	if len(tr) < 2 {
		return "", true
	}
	switch step := tr[1].(type) {
	case hcl.TraverseAttr:
		return step.Name, true
	case hcl.TraverseIndex:
		if step.Key.Type() == cty.String && step.Key.IsKnown() && !step.Key.IsNull() {
			return step.Key.AsString(), true
		}
	}
	return "", true
}

// QuoteList quotes each name and joins them with commas, for messages:
// "a", "b", "c".
func QuoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
