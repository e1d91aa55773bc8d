package hcl

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/internal/suggest"
)

// RawInput is a tool's input_schema: a JSON Schema (2020-12, or draft-07
// when its $schema says so) written by hand, for what param blocks cannot say
// ($defs and $ref, allOf, if/then/else, ...). Clients get it as written;
// the arguments are validated against it, and "param" is the arguments as
// they came, with the schema's top-level properties that are absent as
// null.
type RawInput struct {
	// Schema is the schema as clients see it: every keyword kept, object
	// keys in the order the configuration writes them.
	Schema json.RawMessage
	// resolved validates arguments.
	resolved *jsonschema.Resolved
	// Properties are the names of the top-level properties, sorted.
	Properties []string
}

// decodeInputSchema decodes input_schema: an object expression, or a string
// of JSON (jsonencode(...), file(...), or a heredoc). The schema is
// resolved at once, so that a schema that cannot be used is a config
// error, which points into it where the error says where.
func decodeInputSchema(a *hcl.Attribute, static *hcl.EvalContext) (*RawInput, hcl.Diagnostics) {
	v, diags := a.Expr.Value(static)
	if diags.HasErrors() {
		return nil, diags
	}
	if !v.IsWhollyKnown() || v.IsNull() {
		return nil, hcl.Diagnostics{rangeDiag(a, "Invalid input_schema", "input_schema is fixed when the configuration loads: write the schema as an object, such as input_schema = { type = \"object\", properties = { ... } }, without param references.")}
	}
	v, _ = v.UnmarkDeep()
	raw, err := schemaSource(a.Expr, v, static)
	if err != nil {
		return nil, hcl.Diagnostics{rangeDiag(a, "Invalid input_schema", fmt.Sprintf("input_schema must be a JSON object: %v.", err))}
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, hcl.Diagnostics{rangeDiag(a, "Invalid input_schema", fmt.Sprintf("input_schema must be a JSON object: %v.", err))}
	}
	at := func(ptr []string) *hcl.Range { return ExprRangeAt(a.Expr, pathSteps(doc, ptr)).Ptr() }
	fail := func(ptr []string, detail string) (*RawInput, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid input_schema", Detail: detail, Subject: at(ptr)}}
	}
	top, _ := doc.(map[string]any)
	if top == nil || top["type"] != "object" {
		var ty any
		if top != nil {
			ty = top["type"]
		}
		return fail([]string{"type"}, fmt.Sprintf("A tool's input schema is an object schema: it has type = \"object\" (this one has %s). Put the arguments under properties.", jsonDisplay(ty)))
	}
	diags = append(checkSubschemas(doc, at), checkSchemaHeaders(doc, at)...)
	if diags.HasErrors() {
		return nil, diags
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return fail(nil, fmt.Sprintf("input_schema is not a JSON Schema: %v.", err))
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return fail(resolvePointer(err.Error(), doc), fmt.Sprintf("input_schema cannot be used: %v. References ($ref) must point inside the schema, as in \"#/$defs/address\" or \"#anchor\"; remote schemas are not fetched, and files are not read.", err))
	}
	// Resolved again, checking defaults, when there are any: an error now
	// is a default's.
	hasDefault := false
	eachSubschema(doc, nil, func(s map[string]any, _ []string) {
		_, ok := s["default"]
		hasDefault = hasDefault || ok
	})
	if hasDefault {
		var again jsonschema.Schema
		_ = json.Unmarshal(raw, &again)
		if _, err := again.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
			ptr, detail := defaultProblem(err.Error(), doc)
			return fail(ptr, detail)
		}
	}
	var combinators []string
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if _, ok := top[k]; ok {
			combinators = append(combinators, k)
		}
	}
	if len(combinators) > 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Schema some clients reject",
			Detail:   fmt.Sprintf("input_schema has %s at its top level. The Anthropic and OpenAI APIs refuse a tool whose input schema has oneOf, anyOf or allOf at the top, so clients that hand tools to them fail the request. Move the alternatives into a property.", strings.Join(combinators, " and ")),
			Subject:  a.NameRange.Ptr(),
		})
	}
	ri := &RawInput{Schema: raw, resolved: resolved}
	if props, ok := top["properties"].(map[string]any); ok {
		for name := range props {
			ri.Properties = append(ri.Properties, name)
		}
	}
	sort.Strings(ri.Properties)
	return ri, diags
}

// checkSubschemas checks what the validator would refuse with no place
// named, or not refuse: type names, the values of the keywords that
// take numbers or names, and patterns. Each error points at its keyword.
func checkSubschemas(doc any, at func([]string) *hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]bool{}
	bad := func(ptr []string, kw, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid input_schema", Detail: fmt.Sprintf("At %s: %s", showPointer(append(ptr, kw)), detail), Subject: at(append(ptr, kw))})
	}
	eachSubschema(doc, nil, func(s map[string]any, ptr []string) {
		types, _ := s["type"].([]any)
		if t, ok := s["type"].(string); ok {
			types = []any{t}
		}
		for _, t := range types {
			ty, ok := t.(string)
			if !ok || jsonSchemaTypes[ty] || seen[ty] {
				continue
			}
			seen[ty] = true
			names := []string{"string", "number", "integer", "boolean", "object", "array", "null"}
			detail := fmt.Sprintf("%q is not a JSON Schema type, so every call would fail to match it. The types are %s.", ty, strings.Join(names, ", "))
			detail += suggest.Hint(ty, names)
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown type in input_schema", Detail: detail, Subject: at(append(ptr, "type"))})
		}
		for _, kw := range countKeywords {
			if v, ok := s[kw]; ok {
				if f, isNum := v.(float64); !isNum || f < 0 || f != float64(int64(f)) {
					bad(ptr, kw, fmt.Sprintf("%s is a count: a whole number, 0 or more, not %s.", kw, shortJSON(v)))
				}
			}
		}
		for _, kw := range numberKeywords {
			if v, ok := s[kw]; ok {
				if _, isNum := v.(float64); !isNum {
					bad(ptr, kw, fmt.Sprintf("%s takes a number, not %s.", kw, shortJSON(v)))
				}
			}
		}
		if v, ok := s["required"]; ok {
			list, isList := v.([]any)
			for _, e := range list {
				if _, isStr := e.(string); !isStr {
					isList = false
				}
			}
			if !isList {
				bad(ptr, "required", fmt.Sprintf("required is a list of property names, as [\"name\"], not %s.", shortJSON(v)))
			}
		}
		if v, ok := s["pattern"]; ok {
			src, isStr := v.(string)
			if !isStr {
				bad(ptr, "pattern", fmt.Sprintf("pattern is a regular expression, in a string, not %s.", shortJSON(v)))
			} else if _, err := NewPattern(src); err != nil {
				bad(ptr, "pattern", fmt.Sprintf("%q is not a regular expression Go's regexp package (RE2) takes: %v. Lookarounds and back-references are not supported.", src, err))
			}
		}
		pp, _ := s["patternProperties"].(map[string]any)
		for _, src := range sortedKeys(pp) {
			if _, err := NewPattern(src); err != nil {
				bad(append(ptr, "patternProperties"), src, fmt.Sprintf("%q is not a regular expression Go's regexp package (RE2) takes: %v.", src, err))
			}
		}
	})
	return diags
}

// Keywords that take a count, and keywords that take a number.
var (
	countKeywords  = []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"}
	numberKeywords = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
)

// pathSteps turns a JSON pointer's tokens into the steps of ExprRangeAt:
// an index where doc has an array.
func pathSteps(doc any, tokens []string) []PathStep {
	steps := make([]PathStep, 0, len(tokens))
	for _, t := range tokens {
		switch x := doc.(type) {
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return steps
			}
			steps = append(steps, i)
			doc = x[i]
		case map[string]any:
			steps = append(steps, t)
			doc = x[t]
		default:
			return steps
		}
	}
	return steps
}

// jsonSchemaTypes are the type names of JSON Schema.
var jsonSchemaTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}

// Keywords whose values are schemas: one schema, a map of them, or an
// array of them. The other keywords (const, enum, default, examples,
// vendor keywords, ...) hold values, not schemas.
var (
	schemaKeywords    = []string{"additionalProperties", "unevaluatedProperties", "items", "additionalItems", "unevaluatedItems", "contains", "propertyNames", "not", "if", "then", "else", "contentSchema"}
	schemaMapKeywords = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaListKeys    = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
)

// eachSubschema calls f on every object schema in v (v included), with
// its JSON pointer as tokens. Boolean schemas are skipped.
func eachSubschema(v any, ptr []string, f func(map[string]any, []string)) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	f(s, ptr)
	child := func(tokens ...string) []string { return append(slices.Clip(ptr), tokens...) }
	for _, k := range schemaKeywords {
		if sub, ok := s[k].(map[string]any); ok {
			eachSubschema(sub, child(k), f)
		}
	}
	for _, k := range schemaMapKeywords {
		m, _ := s[k].(map[string]any)
		for _, name := range sortedKeys(m) {
			eachSubschema(m[name], child(k, name), f)
		}
	}
	for _, k := range schemaListKeys {
		list, _ := s[k].([]any)
		for i, sub := range list {
			eachSubschema(sub, child(k, fmt.Sprint(i)), f)
		}
	}
}

// pointerString writes tokens as a JSON pointer ("/properties/a~1b").
func pointerString(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// showPointer names a place in the schema for a message.
func showPointer(tokens []string) string {
	if len(tokens) == 0 {
		return "the top of the schema"
	}
	return pointerString(tokens)
}

// jsonDisplay shows a schema's type value for messages, as in
// `type = "array"`.
func jsonDisplay(v any) string {
	if v == nil {
		return "no type"
	}
	b, _ := json.Marshal(v)
	return "type = " + string(b)
}
