package hcl

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/toolhost/toolhost/internal/suggest"
)

// RawInput is a tool's input_schema: a JSON Schema (2020-12) written by
// hand, for what param blocks cannot say ($defs and $ref, oneOf, ...). The
// arguments are validated against it, and "param" is the arguments as
// they came, with the schema's top-level properties that are absent as
// null.
type RawInput struct {
	// Schema is the schema as clients see it.
	Schema json.RawMessage
	// Resolved validates arguments.
	Resolved *jsonschema.Resolved
	// Properties are the names of the top-level properties, sorted.
	Properties []string
}

// decodeInputSchema decodes input_schema: an object expression, or a string
// of JSON (jsonencode(...), or a heredoc).
func decodeInputSchema(a *hcl.Attribute, static *hcl.EvalContext) (*RawInput, hcl.Diagnostics) {
	v, diags := a.Expr.Value(static)
	if diags.HasErrors() {
		return nil, diags
	}
	if !v.IsWhollyKnown() || v.IsNull() {
		return nil, hcl.Diagnostics{rangeDiag(a, "Invalid input_schema", "input_schema is fixed when the configuration loads: write the schema as an object, such as input_schema = { type = \"object\", properties = { ... } }, without param references.")}
	}
	v, _ = v.UnmarkDeep()
	var raw []byte
	if v.Type() == cty.String {
		raw = []byte(v.AsString())
	} else {
		b, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			return nil, hcl.Diagnostics{rangeDiag(a, "Invalid input_schema", fmt.Sprintf("input_schema cannot be written as JSON: %v.", err))}
		}
		raw = b
	}
	fail := func(detail string) (*RawInput, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{rangeDiag(a, "Invalid input_schema", detail)}
	}
	var probe map[string]any
	if err := json.Unmarshal(raw, &probe); err != nil {
		return fail(fmt.Sprintf("input_schema must be a JSON object: %v.", err))
	}
	if probe["type"] != "object" {
		return fail(fmt.Sprintf("A tool's input schema is an object schema: it has type = \"object\" (this one has %s). Put the arguments under properties.", jsonDisplay(probe["type"])))
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return fail(fmt.Sprintf("input_schema is not a JSON Schema: %v.", err))
	}
	resolved, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return fail(fmt.Sprintf("input_schema cannot be used: %v. References ($ref) must point inside the schema, as in \"#/$defs/address\"; remote schemas are not fetched.", err))
	}
	diags = nil
	var badTypes []string
	walkSchemas(&s, func(sub *jsonschema.Schema) {
		for _, ty := range append([]string{sub.Type}, sub.Types...) {
			if ty != "" && !jsonSchemaTypes[ty] && !slices.Contains(badTypes, ty) {
				badTypes = append(badTypes, ty)
			}
		}
	})
	for _, ty := range badTypes {
		detail := fmt.Sprintf("%q is not a JSON Schema type, so every call would fail to match it. The types are string, number, integer, boolean, object, array and null.", ty)
		detail += suggest.Hint(ty, []string{"string", "number", "integer", "boolean", "object", "array", "null"})
		diags = append(diags, rangeDiag(a, "Unknown type in input_schema", detail))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	var combinators []string
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if _, ok := probe[k]; ok {
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
	ri := &RawInput{Schema: compactJSON(raw), Resolved: resolved}
	for name := range s.Properties {
		ri.Properties = append(ri.Properties, name)
	}
	sort.Strings(ri.Properties)
	return ri, diags
}

// jsonSchemaTypes are the type names of JSON Schema.
var jsonSchemaTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}

// walkSchemas calls f on s and on every schema inside it.
func walkSchemas(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	v := reflect.ValueOf(s).Elem()
	schemaPtr := reflect.TypeOf(s)
	for i := 0; i < v.NumField(); i++ {
		field := v.Field(i)
		switch {
		case field.Type() == schemaPtr:
			walkSchemas(field.Interface().(*jsonschema.Schema), f)
		case field.Kind() == reflect.Slice && field.Type().Elem() == schemaPtr:
			for j := 0; j < field.Len(); j++ {
				walkSchemas(field.Index(j).Interface().(*jsonschema.Schema), f)
			}
		case field.Kind() == reflect.Map && field.Type().Elem() == schemaPtr:
			for _, k := range field.MapKeys() {
				walkSchemas(field.MapIndex(k).Interface().(*jsonschema.Schema), f)
			}
		}
	}
}

// compactJSON re-encodes raw JSON without insignificant space and without
// escaping HTML characters.
func compactJSON(raw []byte) json.RawMessage {
	var b strings.Builder
	var v any
	_ = json.Unmarshal(raw, &v)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return json.RawMessage(strings.TrimSpace(b.String()))
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
