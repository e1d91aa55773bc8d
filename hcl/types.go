package hcl

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/internal/suggest"
)

// TypeKind is the kind of a declared type.
type TypeKind int

// The kinds of declared types. Integer is a number that must be whole.
const (
	KindAny TypeKind = iota
	KindString
	KindNumber
	KindInteger
	KindBool
	KindList
	KindSet
	KindMap
	KindObject
	KindTuple
)

// Type is a type written in HCL's type-constraint syntax (string, number,
// bool, any, list(T), set(T), map(T), object({...}), tuple([...])), plus
// integer. It compiles to a cty type for evaluation and to a JSON Schema for
// clients.
type Type struct {
	Kind TypeKind
	// Elem is the element type of a list, set or map.
	Elem *Type
	// Attrs are an object's attributes, in AttrOrder.
	Attrs     map[string]*Type
	AttrOrder []string
	// Optional names the object attributes declared optional(T).
	Optional map[string]bool
	// Elems are a tuple's element types.
	Elems []*Type
}

// primitiveKinds are the kinds of the primitive type keywords.
var primitiveKinds = map[string]TypeKind{
	"any":     KindAny,
	"string":  KindString,
	"number":  KindNumber,
	"integer": KindInteger,
	"bool":    KindBool,
}

// ParseType reads a type expression such as list(object({ title = string })).
func ParseType(expr hcl.Expression) (*Type, hcl.Diagnostics) {
	return parseType(expr, false)
}

// typeError is an error about a type expression.
func typeError(expr hcl.Expression, summary, detail string) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   detail,
		Subject:  expr.Range().Ptr(),
	}}
}

// typeHelp says how a type is written, for messages.
const typeHelp = "A type is one of string, number, integer, bool, any, list(T), set(T), map(T), object({ name = T, ... }) or tuple([T, ...]); write it without quotes."

// attrNameHelp says what to write for an object type's attribute name
// that is not a bare identifier: the name without its quotes when it is
// one, else how to read a JSON key that cannot be an attribute.
func attrNameHelp(key hcl.Expression) string {
	const help = "An object attribute name is a bare identifier (letters, digits, _ and -), as in { title = string }."
	v, diags := key.Value(nil)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return help
	}
	s := v.AsString()
	if validIdentifier(s) {
		return fmt.Sprintf("%s Write %s without quotes.", help, s)
	}
	return fmt.Sprintf("%s %q is not one: for keys such as it, declare map(T); or, in a result field, give the key a name in the path with a gjson multipath, as in path = \"items.#.{first_name:first name}\" and object({ first_name = string }).", help, s)
}

// parseType is ParseType; inObject is set for an object type's
// attribute types, where optional(T) is allowed.
func parseType(expr hcl.Expression, inObject bool) (*Type, hcl.Diagnostics) {
	if kw := hcl.ExprAsKeyword(expr); kw != "" {
		if k, ok := primitiveKinds[kw]; ok {
			return &Type{Kind: k}, nil
		}
		detail := fmt.Sprintf("%q is not a type. %s", kw, typeHelp)
		if ex, ok := typeConstructors[kw]; ok {
			detail = fmt.Sprintf("%q is not a type on its own: it needs the type of its elements, as in %s. %s", kw, ex, typeHelp)
		} else if s := typeAlias(kw); s != "" {
			detail = fmt.Sprintf("%q is not a type here: write %s. %s", kw, s, typeHelp)
		} else if h := suggest.Hint(kw, []string{"any", "string", "number", "integer", "bool"}); h != "" {
			detail = fmt.Sprintf("%q is not a type.%s %s", kw, h, typeHelp)
		}
		return nil, typeError(expr, "Invalid type", detail)
	}
	call, diags := hcl.ExprCall(expr)
	if diags.HasErrors() {
		if s, ok := quotedType(expr); ok {
			return nil, typeError(expr, "Invalid type", fmt.Sprintf("A type is written without quotes: write %s, not %q.", s, s))
		}
		return nil, typeError(expr, "Invalid type", "This is not a type expression. "+typeHelp)
	}
	oneArg := func() (hcl.Expression, hcl.Diagnostics) {
		if len(call.Arguments) != 1 {
			return nil, typeError(expr, "Invalid type", fmt.Sprintf("%s(...) takes exactly one argument, the type of its elements, as in %s(string).", call.Name, call.Name))
		}
		return call.Arguments[0], nil
	}
	switch call.Name {
	case "list", "set", "map":
		arg, diags := oneArg()
		if diags.HasErrors() {
			return nil, diags
		}
		elem, diags := parseType(arg, false)
		if diags.HasErrors() {
			return nil, diags
		}
		kind := map[string]TypeKind{"list": KindList, "set": KindSet, "map": KindMap}[call.Name]
		return &Type{Kind: kind, Elem: elem}, nil
	case "object":
		arg, diags := oneArg()
		if diags.HasErrors() {
			return nil, diags
		}
		pairs, pdiags := hcl.ExprMap(arg)
		if pdiags.HasErrors() {
			return nil, typeError(arg, "Invalid type", "object(...) takes a map of attribute types, as in object({ title = string, hot = number }).")
		}
		t := &Type{Kind: KindObject, Attrs: map[string]*Type{}, Optional: map[string]bool{}}
		var all hcl.Diagnostics
		for _, p := range pairs {
			name := hcl.ExprAsKeyword(p.Key)
			if name == "" {
				all = append(all, typeError(p.Key, "Invalid attribute name", attrNameHelp(p.Key))...)
				continue
			}
			if _, dup := t.Attrs[name]; dup {
				all = append(all, typeError(p.Key, "Duplicate attribute", fmt.Sprintf("The attribute %q is declared twice in this object type; remove one.", name))...)
				continue
			}
			at, diags := parseType(p.Value, true)
			all = append(all, diags...)
			if at == nil {
				continue
			}
			if at.Kind == kindOptionalMarker {
				at = at.Elem
				t.Optional[name] = true
			}
			t.Attrs[name] = at
			t.AttrOrder = append(t.AttrOrder, name)
		}
		return t, all
	case "tuple":
		arg, diags := oneArg()
		if diags.HasErrors() {
			return nil, diags
		}
		elems, ediags := hcl.ExprList(arg)
		if ediags.HasErrors() {
			return nil, typeError(arg, "Invalid type", "tuple(...) takes a list of element types, as in tuple([string, number]).")
		}
		t := &Type{Kind: KindTuple}
		var all hcl.Diagnostics
		for _, e := range elems {
			et, diags := parseType(e, false)
			all = append(all, diags...)
			if et != nil {
				t.Elems = append(t.Elems, et)
			}
		}
		return t, all
	case "optional":
		if !inObject {
			return nil, typeError(expr, "Invalid type", "optional(T) is only allowed for an attribute of an object type, as in object({ url = optional(string) }).")
		}
		arg, diags := oneArg()
		if diags.HasErrors() {
			return nil, diags
		}
		inner, diags := parseType(arg, false)
		if diags.HasErrors() {
			return nil, diags
		}
		return &Type{Kind: kindOptionalMarker, Elem: inner}, nil
	}
	detail := fmt.Sprintf("%s(...) is not a type constructor. %s", call.Name, typeHelp)
	if s := suggest.Closest(call.Name, []string{"list", "set", "map", "object", "tuple", "optional"}); s != "" {
		detail = fmt.Sprintf("%s(...) is not a type constructor. Did you mean %s(...)? %s", call.Name, s, typeHelp)
	}
	return nil, typeError(expr, "Invalid type", detail)
}

// typeConstructors are the types that take the types of their elements,
// with an example of each: written bare, as in type = list, they are
// told to name them.
var typeConstructors = map[string]string{
	"list":  "list(string)",
	"set":   "set(string)",
	"map":   "map(string)",
	"tuple": "tuple([string, number])",
}

// quotedType returns the text of expr when it is a string literal that
// is itself a valid type expression, as in type = "string": a type
// written in quotes.
func quotedType(expr hcl.Expression) (string, bool) {
	v, diags := expr.Value(nil)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	s := strings.TrimSpace(v.AsString())
	inner, diags := hclsyntax.ParseExpression([]byte(s), "", hcl.InitialPos)
	if diags.HasErrors() {
		return "", false
	}
	if _, diags := ParseType(inner); diags.HasErrors() {
		return "", false
	}
	return s, true
}

// typeAliases are the names other languages (JSON Schema, Go, Python,
// TypeScript) give to types, too far from toolhost's for suggest.Closest to
// find, or close to the wrong one ("int" is as close to "any" as to nothing
// else): an unknown type keyword is told the name to write instead.
var typeAliases = [...]struct{ from, to string }{
	{"int", "integer"},
	{"int32", "integer"},
	{"int64", "integer"},
	{"long", "integer"},
	{"uint", "integer"},
	{"float", "number"},
	{"float32", "number"},
	{"float64", "number"},
	{"double", "number"},
	{"decimal", "number"},
	{"boolean", "bool"},
	{"str", "string"},
	{"text", "string"},
	{"array", "list(T), such as list(string)"},
	{"object", "object({ name = T, ... }), or map(T) for any names"},
	{"dict", "map(T), such as map(string)"},
}

// typeAlias returns what to write for a type named as another language
// names it, or "".
func typeAlias(kw string) string {
	for _, a := range typeAliases {
		if strings.EqualFold(a.from, kw) {
			return a.to
		}
	}
	return ""
}

// kindOptionalMarker wraps an attribute type declared optional(T) while parsing.
const kindOptionalMarker TypeKind = -1

// Cty is the cty type values of this type are converted to.
func (t *Type) Cty() cty.Type {
	switch t.Kind {
	case KindString:
		return cty.String
	case KindNumber, KindInteger:
		return cty.Number
	case KindBool:
		return cty.Bool
	case KindList:
		return cty.List(t.Elem.Cty())
	case KindSet:
		return cty.Set(t.Elem.Cty())
	case KindMap:
		return cty.Map(t.Elem.Cty())
	case KindObject:
		attrs := make(map[string]cty.Type, len(t.Attrs))
		var optional []string
		for n, a := range t.Attrs {
			attrs[n] = a.Cty()
			if t.Optional[n] {
				optional = append(optional, n)
			}
		}
		if len(optional) > 0 {
			return cty.ObjectWithOptionalAttrs(attrs, optional)
		}
		return cty.Object(attrs)
	case KindTuple:
		elems := make([]cty.Type, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = e.Cty()
		}
		return cty.Tuple(elems)
	}
	return cty.DynamicPseudoType
}

// IsPrimitive reports whether the type is a string, number, integer or bool.
func (t *Type) IsPrimitive() bool {
	switch t.Kind {
	case KindString, KindNumber, KindInteger, KindBool:
		return true
	}
	return false
}

// String renders the type as it is written in a config.
func (t *Type) String() string {
	switch t.Kind {
	case KindString:
		return "string"
	case KindNumber:
		return "number"
	case KindInteger:
		return "integer"
	case KindBool:
		return "bool"
	case KindList:
		return "list(" + t.Elem.String() + ")"
	case KindSet:
		return "set(" + t.Elem.String() + ")"
	case KindMap:
		return "map(" + t.Elem.String() + ")"
	case KindObject:
		parts := make([]string, 0, len(t.AttrOrder))
		for _, n := range t.AttrOrder {
			s := t.Attrs[n].String()
			if t.Optional[n] {
				s = "optional(" + s + ")"
			}
			parts = append(parts, n+" = "+s)
		}
		return "object({ " + strings.Join(parts, ", ") + " })"
	case KindTuple:
		parts := make([]string, len(t.Elems))
		for i, e := range t.Elems {
			parts[i] = e.String()
		}
		return "tuple([" + strings.Join(parts, ", ") + "])"
	}
	return "any"
}

// Schema is the JSON Schema of the type. strict adds additionalProperties:
// false to objects (used for inputs, where an unknown property is a mistake).
func (t *Type) Schema(strict bool) *jsonschema.Schema {
	s := &jsonschema.Schema{}
	switch t.Kind {
	case KindString:
		s.Type = "string"
	case KindNumber:
		s.Type = "number"
	case KindInteger:
		s.Type = "integer"
	case KindBool:
		s.Type = "boolean"
	case KindList:
		s.Type = "array"
		s.Items = t.Elem.Schema(strict)
	case KindSet:
		s.Type = "array"
		s.Items = t.Elem.Schema(strict)
		s.UniqueItems = true
	case KindMap:
		s.Type = "object"
		s.AdditionalProperties = t.Elem.Schema(strict)
	case KindObject:
		s.Type = "object"
		s.Properties = make(map[string]*jsonschema.Schema, len(t.Attrs))
		for _, n := range t.AttrOrder {
			s.Properties[n] = t.Attrs[n].Schema(strict)
			if !t.Optional[n] {
				s.Required = append(s.Required, n)
			}
		}
		s.PropertyOrder = append([]string(nil), t.AttrOrder...)
		if strict {
			s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
		}
	case KindTuple:
		s.Type = "array"
		for _, e := range t.Elems {
			s.PrefixItems = append(s.PrefixItems, e.Schema(strict))
		}
		s.MinItems = jsonschema.Ptr(len(t.Elems))
		s.MaxItems = jsonschema.Ptr(len(t.Elems))
	}
	return s
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
