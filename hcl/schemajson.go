package hcl

import (
	"encoding/json"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaJSON renders a schema built by this package as JSON. It writes the
// keywords the compiler uses (type, title, description, default, enum,
// bounds, lengths, pattern, x-mcp-header, items, prefixItems, item counts, uniqueItems,
// properties in declaration order, required, additionalProperties)
// directly, without the slower reflection-based encoder of
// jsonschema.Schema. TestSchemaJSONMatchesEncoder checks that both agree on
// every schema the compiler builds.
func SchemaJSON(s *jsonschema.Schema) json.RawMessage {
	return appendSchema(make([]byte, 0, 256), s)
}

// isFalseSchema reports whether s is {"not": {}}, the schema that matches
// nothing, which JSON Schema also writes as false.
func isFalseSchema(s *jsonschema.Schema) bool {
	n := s.Not
	return n != nil && s.Type == "" && s.Properties == nil && n.Type == "" && n.Not == nil && n.Properties == nil && n.Items == nil && n.Enum == nil
}

// appendSchema appends s to b as JSON, for SchemaJSON.
func appendSchema(b []byte, s *jsonschema.Schema) []byte {
	b = append(b, '{')
	first := true
	key := func(k string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = strconv.AppendQuote(b, k)
		b = append(b, ':')
	}
	str := func(k, v string) {
		if v != "" {
			key(k)
			b = appendString(b, v)
		}
	}
	num := func(k string, f *float64) {
		if f != nil {
			key(k)
			b = strconv.AppendFloat(b, *f, 'g', -1, 64)
		}
	}
	count := func(k string, n *int) {
		if n != nil {
			key(k)
			b = strconv.AppendInt(b, int64(*n), 10)
		}
	}
	str("type", s.Type)
	str("title", s.Title)
	str("description", s.Description)
	if s.Default != nil {
		key("default")
		b = append(b, s.Default...)
	}
	if s.Enum != nil {
		key("enum")
		e, _ := json.Marshal(s.Enum)
		b = append(b, e...)
	}
	num("minimum", s.Minimum)
	num("maximum", s.Maximum)
	count("minLength", s.MinLength)
	count("maxLength", s.MaxLength)
	str("pattern", s.Pattern)
	if h, ok := s.Extra[HeaderKeyword].(string); ok {
		str(HeaderKeyword, h)
	}
	if s.Items != nil {
		key("items")
		b = appendSchema(b, s.Items)
	}
	if s.PrefixItems != nil {
		key("prefixItems")
		b = append(b, '[')
		for i, p := range s.PrefixItems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendSchema(b, p)
		}
		b = append(b, ']')
	}
	count("minItems", s.MinItems)
	count("maxItems", s.MaxItems)
	if s.UniqueItems {
		key("uniqueItems")
		b = append(b, "true"...)
	}
	if s.Properties != nil {
		key("properties")
		b = append(b, '{')
		for i, name := range s.PropertyOrder {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, name)
			b = append(b, ':')
			b = appendSchema(b, s.Properties[name])
		}
		b = append(b, '}')
	}
	if s.Required != nil {
		key("required")
		b = append(b, '[')
		for i, r := range s.Required {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, r)
		}
		b = append(b, ']')
	}
	if a := s.AdditionalProperties; a != nil {
		key("additionalProperties")
		if isFalseSchema(a) {
			b = append(b, "false"...)
		} else {
			b = appendSchema(b, a)
		}
	}
	return append(b, '}')
}

// appendString appends s to b as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
