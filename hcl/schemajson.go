package hcl

import (
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaJSON renders a schema built by this package as JSON. It writes the
// keywords the compiler uses directly, which is several times faster than
// the reflection-based encoder of jsonschema.Schema; a schema using other
// keywords falls back to that encoder. Properties keep their declaration
// order.
func SchemaJSON(s *jsonschema.Schema) json.RawMessage {
	if !simpleSchema(s) {
		b, err := json.Marshal(s)
		if err != nil {
			panic(err)
		}
		return b
	}
	return appendSchema(make([]byte, 0, 256), s)
}

// simpleSchema reports whether s uses only the keywords appendSchema writes.
func simpleSchema(s *jsonschema.Schema) bool {
	c := *s
	c.Type, c.Title, c.Description, c.Default, c.Enum = "", "", "", nil, nil
	c.Minimum, c.Maximum, c.MinLength, c.MaxLength, c.Pattern = nil, nil, nil, nil, ""
	c.Items, c.PrefixItems, c.MinItems, c.MaxItems, c.UniqueItems = nil, nil, nil, nil, false
	c.Properties, c.PropertyOrder, c.Required, c.AdditionalProperties = nil, nil, nil, nil
	if !reflect.DeepEqual(c, jsonschema.Schema{}) {
		return false
	}
	for _, sub := range s.Properties {
		if !simpleSchema(sub) {
			return false
		}
	}
	for _, sub := range s.PrefixItems {
		if !simpleSchema(sub) {
			return false
		}
	}
	if s.Items != nil && !simpleSchema(s.Items) {
		return false
	}
	if a := s.AdditionalProperties; a != nil && !isFalseSchema(a) && !simpleSchema(a) {
		return false
	}
	if len(s.PropertyOrder) != len(s.Properties) {
		return false
	}
	return true
}

// isFalseSchema reports whether s is {"not": {}}, the schema that matches
// nothing, which JSON Schema also writes as false.
func isFalseSchema(s *jsonschema.Schema) bool {
	if s.Not == nil || !reflect.DeepEqual(*s.Not, jsonschema.Schema{}) {
		return false
	}
	c := *s
	c.Not = nil
	return reflect.DeepEqual(c, jsonschema.Schema{})
}

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

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
