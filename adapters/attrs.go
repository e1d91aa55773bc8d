package adapters

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Attrs reads the attributes of a backend block that are fixed when the
// configuration loads (durations, sizes, switches, names), with one wording
// for each mistake in every backend, and checks the parameter references of
// those that may use parameters.
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
		if s := SuggestName(name, c.ParamNames()); s != "" {
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
// arguments. ok is false when diagnostics were reported.
func (c *Attrs) Constant(a *hcl.Attribute, example string) (cty.Value, hcl.Diagnostics, bool) {
	var diags hcl.Diagnostics
	for _, tr := range a.Expr.Variables() {
		if tr.RootName() != "param" {
			continue
		}
		rng := tr.SourceRange()
		if len(tr) > 1 {
			rng = hcl.RangeBetween(tr[0].SourceRange(), tr[1].SourceRange())
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Parameter reference not allowed",
			Detail: fmt.Sprintf("The %s argument is fixed when the configuration loads, so it cannot refer to parameters. "+
				"Write a constant value, such as %s = %s.", a.Name, a.Name, example),
			Subject:    &rng,
			Expression: a.Expr,
		})
	}
	if diags.HasErrors() {
		return cty.DynamicVal, diags, false
	}
	v, vd := a.Expr.Value(c.Eval)
	diags = append(diags, vd...)
	if diags.HasErrors() {
		return cty.DynamicVal, diags, false
	}
	if !v.IsWhollyKnown() {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Value not known at load time",
			Detail: fmt.Sprintf("The %s argument must be known when the configuration loads, and this expression is only known later. "+
				"Write a constant value, such as %s = %s.", a.Name, a.Name, example),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
		return cty.DynamicVal, diags, false
	}
	v, _ = v.UnmarkDeep()
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

// Duration reads a duration attribute, in (0, max], or [0, max] when zero
// is allowed; what names it in messages, and title starts the summary of
// one out of range; example is a value in range, examples a few (all in
// range, so that the fix a message suggests is one that loads).
func (c *Attrs) Duration(a *hcl.Attribute, what, title string, zero bool, max time.Duration, example, examples string) (time.Duration, hcl.Diagnostics, bool) {
	v, diags, ok := c.Constant(a, example)
	if !ok {
		return 0, diags, false
	}
	sv, err := convert.Convert(v, cty.String)
	if err != nil || sv.IsNull() {
		return 0, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid " + what,
			Detail: fmt.Sprintf("The %s must be a duration string, and this is %s. "+
				`Write a number with a unit, such as %s.`, what, TypeName(v.Type()), examples),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		}), false
	}
	s := sv.AsString()
	d, err := time.ParseDuration(s)
	if err != nil {
		hint := DurationHint(s)
		if d, err := time.ParseDuration(strings.TrimSpace(s) + "s"); err != nil || d < 0 || d > max {
			hint = "" // the seconds it would be are out of range too
		}
		return 0, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid " + what,
			Detail: fmt.Sprintf(`%q is not a duration. Write a number with a unit, such as %s `+
				`(units are ms, s, m and h).%s`, s, examples, hint),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		}), false
	}
	if d < 0 || (d == 0 && !zero) || d > max {
		low := "more than zero"
		if zero {
			low = "zero or more"
		}
		return 0, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  title + " out of range",
			Detail: fmt.Sprintf("The %s is %s, and it must be %s and at most %s. "+
				`Write a duration in that range, such as %s.`, what, FormatDuration(d), low, FormatDuration(max), example),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		}), false
	}
	return d, diags, true
}

// ByteCount reads a size in bytes, from 1 to max (maxText says it in
// MiB), as max_output is written in exec and template blocks.
func (c *Attrs) ByteCount(a *hcl.Attribute, max int, maxText string) (int, hcl.Diagnostics, bool) {
	v, diags, ok := c.Constant(a, "1048576")
	if !ok {
		return 0, diags, false
	}
	invalid := func(detail string) (int, hcl.Diagnostics, bool) {
		return 0, append(diags, &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Invalid " + a.Name,
			Detail:     detail,
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		}), false
	}
	nv, err := convert.Convert(v, cty.Number)
	if err != nil {
		if hint := SizeHint(a.Name, v); hint != "" {
			return invalid(fmt.Sprintf("The %s argument must be a number of bytes, and this is %s.%s", a.Name, TypeName(v.Type()), hint))
		}
		return invalid(fmt.Sprintf("The %s argument must be a number of bytes, and this is %s. "+
			"Write a whole number, such as %s = 1048576 for 1 MiB.", a.Name, TypeName(v.Type()), a.Name))
	}
	bf := nv.AsBigFloat()
	if !bf.IsInt() || bf.Sign() <= 0 || bf.Cmp(big.NewFloat(float64(max))) > 0 {
		return invalid(fmt.Sprintf("The %s argument is %s, and it must be a whole number of bytes from 1 to %d (%s). "+
			"Write a number in that range, such as %s = 1048576 for 1 MiB.", a.Name, bf.Text('f', -1), max, maxText, a.Name))
	}
	n, _ := bf.Int64()
	return int(n), diags, true
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
			Detail:     fmt.Sprintf("The %s argument must be true or false, and this is %s. %s", a.Name, TypeName(v.Type()), fix),
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

// DurationHint suggests, for a duration written as a bare number, the same
// number in seconds: ` Did you mean "5s"?` for "5"; "" otherwise.
func DurationHint(s string) string {
	if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", strings.TrimSpace(s)+"s")
}

// FormatDuration formats d without zero minutes and seconds, as in "1h".
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// TypeName names a type with an article, for messages.
func TypeName(ty cty.Type) string {
	name := ty.FriendlyName()
	if strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// SuggestName returns the candidate closest to given, when close enough.
func SuggestName(given string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := levenshtein(given, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func QuoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
