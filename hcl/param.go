package hcl

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/toolhost/toolhost/internal/attr"
)

// Param is a param block: one argument of a tool.
type Param struct {
	Name        string
	Type        *Type
	Title       string
	Description string
	// Default is cty.NilVal when the parameter has no default.
	Default cty.Value
	// Required is true for parameters with no default, unless required =
	// false.
	Required             bool
	Enum                 []cty.Value
	Minimum, Maximum     *float64
	MinLength, MaxLength *int
	MinItems, MaxItems   *int
	Pattern              *Pattern
	// Choices are the values a multi-select field of an ask block offers
	// (each element of its list is one of them).
	Choices    []cty.Value
	AllowFlags bool
	Sensitive  bool
	// Header, when set, is the x-mcp-header the argument is mirrored
	// into (as Mcp-Param-Header), at HeaderRange; see mcpheader.go.
	Header      string
	HeaderRange hcl.Range
	DeclRange   hcl.Range
}

// paramBlockSchema is the schema of a param block.
var paramBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"},
		{Name: "title"},
		{Name: "description"},
		{Name: "default"},
		{Name: "required"},
		{Name: "enum"},
		{Name: "minimum"},
		{Name: "maximum"},
		{Name: "min_length"},
		{Name: "max_length"},
		{Name: "min_items"},
		{Name: "max_items"},
		{Name: "pattern"},
		{Name: "allow_flags"},
		{Name: "sensitive"},
		{Name: "header"},
	},
}

// decodeParam decodes a param block (or an ask block's field). It returns
// the parameter even when the block has errors, with typed true when its
// type is known for sure all the same (the block has no unknown attribute,
// which may be a misspelt type, and its type, if any, parses): the tool's
// backend and result are then checked with it, so that a bad default or
// bound does not hide their mistakes.
func decodeParam(block *hcl.Block, ctx *hcl.EvalContext) (p *Param, diags hcl.Diagnostics, typed bool) {
	p = &Param{Name: block.Labels[0], DeclRange: block.DefRange, Type: &Type{Kind: KindString}}
	content, diags := block.Body.Content(paramBlockSchema)
	explainUnsupported(diags, paramBlockSchema)
	typed = !diags.HasErrors()
	if !validIdentifier(p.Name) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid parameter name",
			Detail:   fmt.Sprintf("%q cannot be used as param.%s in expressions. A parameter name starts with a letter and has only letters, digits, '_' and '-'; try %q.", p.Name, p.Name, sanitizeName(p.Name)),
			Subject:  block.LabelRanges[0].Ptr(),
		})
	}
	attrs := content.Attributes
	typeOK := true
	if a, ok := attrs["type"]; ok {
		t, d := ParseType(a.Expr)
		diags = append(diags, d...)
		typeOK = !d.HasErrors() && t != nil
		typed = typed && typeOK
		if t != nil {
			p.Type = t
		}
	}
	diags = append(diags, stringAttr(attrs, "title", ctx, &p.Title)...)
	diags = append(diags, stringAttr(attrs, "description", ctx, &p.Description)...)
	diags = append(diags, boolAttr(attrs, "allow_flags", ctx, &p.AllowFlags)...)
	diags = append(diags, boolAttr(attrs, "sensitive", ctx, &p.Sensitive)...)
	diags = append(diags, numberAttr(attrs, "minimum", ctx, &p.Minimum)...)
	diags = append(diags, numberAttr(attrs, "maximum", ctx, &p.Maximum)...)
	diags = append(diags, countAttr(attrs, "min_length", ctx, &p.MinLength)...)
	diags = append(diags, countAttr(attrs, "max_length", ctx, &p.MaxLength)...)
	diags = append(diags, countAttr(attrs, "min_items", ctx, &p.MinItems)...)
	diags = append(diags, countAttr(attrs, "max_items", ctx, &p.MaxItems)...)
	if !typeOK {
		// Without its type nothing else of the param can be checked.
		p.Required = true
		return p, diags, typed
	}
	// The checks below go on after an error above, so that a config's
	// problems show at once: a constraint that did not decode is nil, and
	// an attribute with an error is not checked again.
	kind := p.Type.Kind
	isNumber := kind == KindNumber || kind == KindInteger
	isCollection := kind == KindList || kind == KindSet || kind == KindTuple
	wrongType := func(name, wants string) {
		if overlapsError(diags, attrs[name].Range) {
			return
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Constraint does not fit the type",
			Detail:   fmt.Sprintf("%s applies to %s parameters, but %q is of type %s. Remove %s or change the type.", name, wants, p.Name, p.Type, name),
			Subject:  attrs[name].NameRange.Ptr(),
		})
	}
	if (p.Minimum != nil || p.Maximum != nil) && !isNumber {
		for _, n := range []string{"minimum", "maximum"} {
			if _, ok := attrs[n]; ok {
				wrongType(n, "number and integer")
			}
		}
	}
	for _, n := range []string{"min_length", "max_length", "pattern"} {
		if _, ok := attrs[n]; ok && kind != KindString {
			wrongType(n, "string")
		}
	}
	for _, n := range []string{"min_items", "max_items"} {
		if _, ok := attrs[n]; ok && !isCollection {
			wrongType(n, "list, set and tuple")
		}
	}
	if p.Minimum != nil && p.Maximum != nil && *p.Minimum > *p.Maximum {
		diags = append(diags, rangeDiag(attrs["minimum"], "minimum is greater than maximum", fmt.Sprintf("No value can be at least %v and at most %v. Swap or correct the bounds.", *p.Minimum, *p.Maximum)))
	}
	if p.MinLength != nil && p.MaxLength != nil && *p.MinLength > *p.MaxLength {
		diags = append(diags, rangeDiag(attrs["min_length"], "min_length is greater than max_length", "No string can satisfy both lengths. Swap or correct them."))
	}
	if a, ok := attrs["pattern"]; ok && kind == KindString {
		var src string
		diags = append(diags, stringAttr(attrs, "pattern", ctx, &src)...)
		pat, err := NewPattern(src)
		if err != nil {
			diags = append(diags, rangeDiag(a, "Invalid pattern", fmt.Sprintf("The pattern is not a valid regular expression: %s. Patterns use RE2 syntax (the common subset of ECMAScript that JSON Schema clients also understand).", err)))
		} else {
			p.Pattern = pat
		}
	}
	diags = append(diags, p.decodeHeader(attrs, ctx, block.Type)...)
	if a, ok := attrs["enum"]; ok {
		diags = append(diags, p.decodeEnum(a, ctx)...)
	}
	if a, ok := attrs["default"]; ok {
		diags = append(diags, p.decodeDefault(a, ctx)...)
	}
	p.Required = p.Default == cty.NilVal
	if a, ok := attrs["required"]; ok {
		var req bool
		diags = append(diags, boolAttr(attrs, "required", ctx, &req)...)
		if req && p.Default != cty.NilVal {
			diags = append(diags, rangeDiag(a, "Required parameter with a default", fmt.Sprintf("%q has a default, so a caller never has to give it. Remove required = true, or remove the default.", p.Name)))
		}
		p.Required = req
	}
	return p, diags, typed
}

// schema is the parameter's JSON schema, as a property of the tool's
// input schema.
func (p *Param) schema() *jsonschema.Schema {
	s := p.Type.Schema(true)
	s.Title = p.Title
	s.Description = p.Description
	// A sensitive parameter's default (often read with env()) never goes
	// into the schema a model and a client see.
	if p.Default != cty.NilVal && !p.Sensitive {
		s.Default = EncodeJSON(p.Type, p.Default)
	}
	for _, e := range p.Enum {
		var v any
		_ = json.Unmarshal(EncodeJSON(p.Type, e), &v)
		s.Enum = append(s.Enum, v)
	}
	s.Minimum, s.Maximum = p.Minimum, p.Maximum
	s.MinLength, s.MaxLength = p.MinLength, p.MaxLength
	// A tuple's own size bounds stay unless the param narrows them.
	if p.MinItems != nil {
		s.MinItems = p.MinItems
	}
	if p.MaxItems != nil {
		s.MaxItems = p.MaxItems
	}
	if p.Pattern != nil {
		s.Pattern = p.Pattern.String()
	}
	if p.Header != "" {
		s.Extra = map[string]any{HeaderKeyword: p.Header}
	}
	return s
}

// decodeEnum decodes a param's enum: a non-empty list of values of its
// type, each meeting its constraints. It sets p.Enum to the values that do.
func (p *Param) decodeEnum(a *hcl.Attribute, ctx *hcl.EvalContext) hcl.Diagnostics {
	v, diags := attr.Constant(a, ctx, cty.DynamicPseudoType)
	if diags.HasErrors() {
		return diags
	}
	if !v.CanIterateElements() || v.Type().IsMapType() || v.Type().IsObjectType() || v.LengthInt() == 0 {
		return append(diags, rangeDiag(a, "Invalid enum", "enum is a non-empty list of the allowed values, as in enum = [\"simple\", \"detailed\"]."))
	}
	var enum []cty.Value
	// A list written out points each bad value at itself.
	items, _ := a.Expr.(*hclsyntax.TupleConsExpr)
	if items != nil && len(items.Exprs) != v.LengthInt() {
		items = nil
	}
	for i, it := 0, v.ElementIterator(); it.Next(); i++ {
		_, ev := it.Element()
		cv, msg := p.conform(ev)
		if msg != "" {
			d := rangeDiag(a, "Invalid enum value", fmt.Sprintf("The enum value %s %s. Every enum value must be a valid value of the parameter.", ctyDisplay(ev), msg))
			if items != nil && v.Type().IsTupleType() {
				d.Subject = items.Exprs[i].Range().Ptr()
			}
			diags = append(diags, d)
			continue
		}
		enum = append(enum, cv)
	}
	p.Enum = enum
	return diags
}

// decodeDefault decodes a param's default, which must meet its type and
// constraints (enum included, so p.Enum is decoded first). A sensitive
// param's default is not shown in the message.
func (p *Param) decodeDefault(a *hcl.Attribute, ctx *hcl.EvalContext) hcl.Diagnostics {
	v, diags := attr.Constant(a, ctx, cty.DynamicPseudoType)
	if diags.HasErrors() {
		return diags
	}
	cv, msg := p.conform(v)
	if msg == "" {
		p.Default = cv
		return diags
	}
	shown := ctyDisplay(v)
	if p.Sensitive {
		shown = "(sensitive value)"
	}
	return append(diags, rangeDiag(a, "Invalid default", fmt.Sprintf("The default %s %s. Change the default, or the type or constraint it does not meet.", shown, msg)))
}

// Check checks a value already of the parameter's type against the
// parameter's constraints (bounds, lengths, pattern, enum). It returns a
// message such as "is not one of the enum values" when v does not fit, or "".
func (p *Param) Check(v cty.Value) string {
	if p.unconstrained(v) {
		return ""
	}
	_, msg := p.conform(v)
	return msg
}

// unconstrained reports whether v is a known string or bool, not null and
// not marked, of a parameter of its type with nothing to check it against:
// conform would find nothing wrong with it.
func (p *Param) unconstrained(v cty.Value) bool {
	switch {
	case p.Type.Kind == KindString && v.Type() == cty.String:
		if p.MinLength != nil || p.MaxLength != nil || p.Pattern != nil {
			return false
		}
	case p.Type.Kind == KindBool && v.Type() == cty.Bool:
	default:
		return false
	}
	return len(p.Enum) == 0 && v.IsKnown() && !v.IsNull() && !v.IsMarked()
}

// conform converts v to the parameter's type and checks it against the
// parameter's constraints. It returns a message such as "is not one of the
// enum values" when v does not fit.
func (p *Param) conform(v cty.Value) (cty.Value, string) {
	if !finiteNumbers(v) {
		return cty.NilVal, "has a number beyond what a 64-bit number holds (0, or a magnitude from 4.9e-324 to 1.8e308), which no client could read in the schema"
	}
	cv, err := convert.Convert(v, p.Type.Cty())
	if err != nil {
		return cty.NilVal, fmt.Sprintf("is not of type %s", p.Type)
	}
	if cv.IsNull() {
		return cty.NilVal, "is null"
	}
	if p.Type.Kind == KindInteger && !cv.AsBigFloat().IsInt() {
		return cty.NilVal, "is not a whole number"
	}
	if p.Type.Kind == KindNumber || p.Type.Kind == KindInteger {
		f, _ := cv.AsBigFloat().Float64()
		if p.Minimum != nil && f < *p.Minimum {
			return cty.NilVal, fmt.Sprintf("is less than the minimum %v", *p.Minimum)
		}
		if p.Maximum != nil && f > *p.Maximum {
			return cty.NilVal, fmt.Sprintf("is greater than the maximum %v", *p.Maximum)
		}
	}
	if p.Type.Kind == KindString {
		s := cv.AsString()
		n := len([]rune(s))
		if p.MinLength != nil && n < *p.MinLength {
			return cty.NilVal, fmt.Sprintf("is shorter than min_length %d", *p.MinLength)
		}
		if p.MaxLength != nil && n > *p.MaxLength {
			return cty.NilVal, fmt.Sprintf("is longer than max_length %d", *p.MaxLength)
		}
		if p.Pattern != nil && !p.Pattern.MatchString(s) {
			return cty.NilVal, fmt.Sprintf("does not match the pattern %s", p.Pattern)
		}
	}
	if (p.MinItems != nil || p.MaxItems != nil) && cv.CanIterateElements() {
		n := cv.LengthInt()
		if p.MinItems != nil && n < *p.MinItems {
			return cty.NilVal, fmt.Sprintf("has %d items, fewer than min_items %d", n, *p.MinItems)
		}
		if p.MaxItems != nil && n > *p.MaxItems {
			return cty.NilVal, fmt.Sprintf("has %d items, more than max_items %d", n, *p.MaxItems)
		}
	}
	if len(p.Enum) > 0 {
		found := false
		for _, e := range p.Enum {
			if e.Equals(cv).True() {
				found = true
				break
			}
		}
		if !found {
			return cty.NilVal, "is not one of the allowed values " + enumList(p.Enum)
		}
	}
	return cv, ""
}

// enumList shows enum values for messages, as in ["a", "b"].
func enumList(vals []cty.Value) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = ctyDisplay(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// finiteNumbers reports whether every number in v, however deep, is one a
// 64-bit float holds (JSON decoders, the SDK's among them, fail on others).
func finiteNumbers(v cty.Value) bool {
	ok := true
	_ = cty.Walk(v, func(_ cty.Path, e cty.Value) (bool, error) {
		e, _ = e.Unmark()
		if e.IsKnown() && !e.IsNull() && e.Type() == cty.Number {
			f, _ := e.AsBigFloat().Float64()
			if math.IsInf(f, 0) || (f == 0 && e.AsBigFloat().Sign() != 0) {
				ok = false
			}
		}
		return ok, nil
	})
	return ok
}

// IntegerValue reports whether v is a whole number, for integer types.
func IntegerValue(v cty.Value) bool {
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Number {
		return false
	}
	return v.AsBigFloat().IsInt() // beyond int64 too, as parameters take them
}
