package openapi

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	thcl "github.com/toolhost/toolhost/hcl"
)

// maxSchemaDepth is how deep Convert follows a schema (nested objects,
// arrays and $refs): deeper, or around a cycle, a value is any.
const maxSchemaDepth = 12

// merged returns s with the parts of its allOf folded in (properties,
// required, type, description), as most documents use allOf to extend a
// base schema; s itself is left alone. A part that is itself an allOf
// is folded too, up to maxSchemaDepth.
func merged(s *Schema) *Schema {
	return mergeDepth(s, 0)
}

// mergeDepth is merged at a depth of allOf nesting. It also folds a
// union of one schema and null (anyOf or oneOf, as 3.1 documents write
// a nullable reference) into that schema, nullable.
func mergeDepth(s *Schema, depth int) *Schema {
	if s == nil || depth > maxSchemaDepth {
		return s
	}
	if other := orNull(s); other != nil {
		out := *mergeDepth(other, depth+1)
		out.Nullable = true
		if out.Description == "" {
			out.Description = s.Description
		}
		return &out
	}
	if len(s.AllOf) == 0 {
		return s
	}
	out := *s
	out.AllOf = nil
	out.Properties = map[string]*Schema{}
	for _, part := range s.AllOf {
		p := mergeDepth(part, depth+1)
		if p == nil {
			continue
		}
		for k, v := range p.Properties {
			out.Properties[k] = v
		}
		out.Required = append(out.Required, p.Required...)
		if out.Type == nil {
			out.Type = p.Type
		}
		if out.Description == "" {
			out.Description = p.Description
		}
		if len(out.OneOf) == 0 && len(out.AnyOf) == 0 {
			out.OneOf, out.AnyOf = p.OneOf, p.AnyOf
		}
	}
	for k, v := range s.Properties {
		out.Properties[k] = v
	}
	return &out
}

// orNull returns the schema of a union of it and null (anyOf or oneOf
// of two, one of them type null), nil for any other schema.
func orNull(s *Schema) *Schema {
	for _, parts := range [][]*Schema{s.AnyOf, s.OneOf} {
		if len(parts) != 2 || len(s.AllOf) > 0 || len(s.Properties) > 0 {
			continue
		}
		for i, p := range parts {
			if v := p; v != nil && len(v.Type) == 1 && v.Type[0] == "null" {
				return parts[1-i]
			}
		}
	}
	return nil
}

// kind is the JSON type a schema describes: "string", "integer",
// "number", "boolean", "array", "object", or "" when it allows several
// or says nothing. A type list with "null" in it counts its other type.
func kind(s *Schema) string {
	if s == nil {
		return ""
	}
	if s.Type != nil {
		var types []string
		for _, t := range s.Type {
			if t != "null" {
				types = append(types, t)
			}
		}
		if len(types) == 1 {
			return types[0]
		}
		if len(types) > 1 {
			return ""
		}
	}
	switch {
	case len(s.OneOf) > 0 || len(s.AnyOf) > 0:
		return ""
	case len(s.Properties) > 0:
		return "object"
	case s.Items != nil:
		return "array"
	}
	return ""
}

// hclType is the HCL type expression for s, and whether a param block
// can carry it without losing its constraints (a scalar, or a list of
// scalars): a nested object, a union or an unknown shape cannot, and
// asks for an input_schema instead. For a result field, lossy is fine:
// objects become object({...}) with optional attributes, and what has
// no HCL type becomes any.
func hclType(s *Schema, depth int) (typ string, simple bool) {
	s = merged(s)
	if s == nil || depth > maxSchemaDepth {
		return "any", false
	}
	switch kind(s) {
	case "string":
		return "string", true
	case "integer":
		return "integer", true
	case "number":
		return "number", true
	case "boolean":
		return "bool", true
	case "array":
		elem, simpleElem := hclType(s.Items, depth+1)
		if s.Items == nil {
			return "list(any)", false
		}
		return "list(" + elem + ")", simpleElem && scalar(elem)
	case "object":
		if len(s.Properties) == 0 {
			if ap := s.AdditionalProperties; ap != nil {
				elem, _ := hclType(ap, depth+1)
				return "map(" + elem + ")", false
			}
			return "any", false
		}
		if depth >= 3 {
			return "any", false
		}
		var attrs []string
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			if !bareKey(name) {
				// object({...}) takes identifiers only; the key is
				// dropped (any keeps it whole, so take that).
				return "any", false
			}
			ps := merged(s.Properties[name])
			t, _ := hclType(ps, depth+1)
			if !slices.Contains(s.Required, name) || nullable(ps) {
				t = "optional(" + t + ")"
			}
			attrs = append(attrs, name+" = "+t)
		}
		return "object({ " + strings.Join(attrs, ", ") + " })", false
	}
	return "any", false
}

// scalar reports whether an HCL type is a primitive.
func scalar(t string) bool {
	switch t {
	case "string", "integer", "number", "bool":
		return true
	}
	return false
}

// constraints are the attributes of a param block that a schema gives:
// enum, bounds, lengths, pattern and default, each kept only when the
// config loader will accept it (a pattern RE2 cannot compile, a default
// outside the enum, is left out).
func constraints(s *Schema, typ string) orderedObject {
	s = merged(s)
	if s == nil {
		return nil
	}
	var out orderedObject
	add := func(k string, v any) { out = append(out, keyValue{k, v}) }
	if len(s.Enum) > 0 {
		var vals []any
		for _, v := range s.Enum {
			if fits(v, typ) {
				vals = append(vals, v)
			}
		}
		if len(vals) == len(s.Enum) || (len(vals) > 0 && len(vals) == len(s.Enum)-1 && slices.Contains(s.Enum, nil)) {
			add("enum", vals)
		}
	}
	limits(s, typ, func(name, _ string, v any) {
		switch name {
		case "minimum", "maximum":
			if typ != "integer" && typ != "number" {
				return
			}
		case "min_length", "max_length", "pattern":
			if typ != "string" {
				return
			}
		case "min_items", "max_items":
			if !strings.HasPrefix(typ, "list(") {
				return
			}
		}
		add(name, v)
	})
	if s.Default != nil && fits(s.Default, typ) && allows(s, typ, s.Default) {
		add("default", s.Default)
	}
	return out
}

// limits calls add with each bound of s that is set, by its param
// attribute's name and its JSON Schema keyword: minimum and maximum
// (for typ, which an exclusive integer bound depends on), the lengths,
// the pattern (when RE2 compiles it, as the config loader does) and the
// numbers of items.
func limits(s *Schema, typ string, add func(name, keyword string, v any)) {
	lo, hasLo := lowerBound(s, typ)
	hi, hasHi := upperBound(s, typ)
	if hasLo && hasHi && lo > hi {
		// A document's contradiction (no value fits) would make the
		// config invalid: the bounds are left out, not guessed at.
		hasLo, hasHi = false, false
	}
	if hasLo {
		add("minimum", "minimum", lo)
	}
	if hasHi {
		add("maximum", "maximum", hi)
	}
	lengthsOK := s.MaxLength == nil || s.MinLength <= *s.MaxLength
	if s.MinLength > 0 && lengthsOK {
		add("min_length", "minLength", s.MinLength)
	}
	if s.MaxLength != nil && lengthsOK {
		add("max_length", "maxLength", *s.MaxLength)
	}
	if s.Pattern != "" {
		if _, err := thcl.NewPattern(s.Pattern); err == nil {
			add("pattern", "pattern", s.Pattern)
		}
	}
	itemsOK := s.MaxItems == nil || s.MinItems <= *s.MaxItems
	if s.MinItems > 0 && itemsOK {
		add("min_items", "minItems", s.MinItems)
	}
	if s.MaxItems != nil && itemsOK {
		add("max_items", "maxItems", *s.MaxItems)
	}
}

// lowerBound is the smallest value s allows, from minimum and
// exclusiveMinimum (3.0's boolean or 3.1's number; an exclusive integer
// bound moves up by one, a number's is kept as inclusive).
func lowerBound(s *Schema, typ string) (float64, bool) {
	switch {
	case s.ExclusiveMin.Value != nil:
		v := *s.ExclusiveMin.Value
		if typ == "integer" {
			v = math.Floor(v) + 1
		}
		return v, true
	case s.Min != nil:
		v := *s.Min
		if s.ExclusiveMin.Bool != nil && *s.ExclusiveMin.Bool && typ == "integer" {
			v = math.Floor(v) + 1
		}
		return v, true
	}
	return 0, false
}

// upperBound is lowerBound's other end.
func upperBound(s *Schema, typ string) (float64, bool) {
	switch {
	case s.ExclusiveMax.Value != nil:
		v := *s.ExclusiveMax.Value
		if typ == "integer" {
			v = math.Ceil(v) - 1
		}
		return v, true
	case s.Max != nil:
		v := *s.Max
		if s.ExclusiveMax.Bool != nil && *s.ExclusiveMax.Bool && typ == "integer" {
			v = math.Ceil(v) - 1
		}
		return v, true
	}
	return 0, false
}

// fits reports whether the JSON value v is of the HCL type typ.
func fits(v any, typ string) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "bool":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := number(v)
		return ok
	case "integer":
		f, ok := number(v)
		return ok && f == math.Trunc(f)
	}
	if strings.HasPrefix(typ, "list(") {
		list, ok := v.([]any)
		if !ok {
			return false
		}
		elem := strings.TrimSuffix(strings.TrimPrefix(typ, "list("), ")")
		for _, e := range list {
			if !fits(e, elem) {
				return false
			}
		}
		return true
	}
	return typ == "any"
}

// number returns a JSON number as a float64.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

// allows reports whether v passes the enum, bounds, lengths and pattern
// of s, as the config loader checks a default.
func allows(s *Schema, typ string, v any) bool {
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		return false
	}
	if f, ok := number(v); ok {
		if lo, ok := lowerBound(s, typ); ok && f < lo {
			return false
		}
		if hi, ok := upperBound(s, typ); ok && f > hi {
			return false
		}
	}
	if str, ok := v.(string); ok {
		n := uint64(len([]rune(str)))
		if n < s.MinLength || (s.MaxLength != nil && n > *s.MaxLength) {
			return false
		}
		if s.Pattern != "" {
			p, err := thcl.NewPattern(s.Pattern)
			if err != nil || !p.MatchString(str) {
				return false
			}
		}
	}
	return true
}

// jsonSchema writes s as a JSON Schema (2020-12) object for an
// input_schema, its $refs resolved in place: a cycle, or a schema deeper
// than maxSchemaDepth, becomes {} (anything). OpenAPI's nullable becomes
// a type list with null; readOnly properties are left out, as a request
// does not send them.
func jsonSchema(ref *Schema, depth int, stack []*Schema) orderedObject {
	s := ref
	if s == nil || depth > maxSchemaDepth || slices.Contains(stack, s) {
		return orderedObject{}
	}
	stack = append(stack, s)
	var out orderedObject
	add := func(k string, v any) { out = append(out, keyValue{k, v}) }
	if len(s.Type) > 0 {
		types := slices.Clone(s.Type)
		if s.Nullable && !slices.Contains(types, "null") {
			types = append(types, "null")
		}
		if len(types) == 1 {
			add("type", types[0])
		} else {
			add("type", toAny(types))
		}
	}
	if d := brief(s.Description, 200); d != "" {
		add("description", d)
	}
	if len(s.Enum) > 0 {
		add("enum", s.Enum)
	}
	if s.Const != nil {
		add("const", s.Const)
	}
	if s.Format != "" {
		add("format", s.Format)
	}
	limits(s, kind(s), func(_, keyword string, v any) { add(keyword, v) })
	if s.Items != nil {
		add("items", jsonSchema(s.Items, depth+1, stack))
	}
	if len(s.Properties) > 0 {
		var props orderedObject
		var required []any
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[name]
			if v := p; v != nil && v.ReadOnly {
				continue
			}
			props = append(props, keyValue{name, jsonSchema(p, depth+1, stack)})
			if slices.Contains(s.Required, name) {
				required = append(required, name)
			}
		}
		add("properties", props)
		if len(required) > 0 {
			add("required", required)
		}
	}
	if s.NoAdditionalProperties {
		add("additionalProperties", false)
	} else if s.AdditionalProperties != nil {
		add("additionalProperties", jsonSchema(s.AdditionalProperties, depth+1, stack))
	}
	for _, c := range []struct {
		name  string
		parts []*Schema
	}{{"allOf", s.AllOf}, {"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
		if len(c.parts) == 0 {
			continue
		}
		var parts []any
		for _, p := range c.parts {
			parts = append(parts, jsonSchema(p, depth+1, stack))
		}
		add(c.name, parts)
	}
	if s.Default != nil {
		add("default", s.Default)
	}
	return out
}

// toAny returns a []string as a []any, for value.
func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// mdLink is a Markdown link, [text](target), compiled at its first use.
var mdLink = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[([^\]\n]+)\]\([^)\s]+\)`)
})

// brief trims a description to what a model needs: its first
// paragraph, spaces collapsed, Markdown links as their text, at most max bytes, cut at the end of a
// sentence when there is one, else at a word, with an ellipsis.
func brief(s string, max int) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	s = mdLink().ReplaceAllString(strings.Join(strings.Fields(s), " "), "$1")
	if len(s) <= max {
		return s
	}
	cut := s[:max]
	if i := strings.LastIndex(cut, ". "); i > max/3 {
		return cut[:i+1]
	}
	if i := strings.LastIndex(cut, " "); i > 0 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, ",;:") + "…"
}
