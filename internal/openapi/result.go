package openapi

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
)

// maxResultFields is the most result fields written for a response
// object; the rest of its properties are left out.
const maxResultFields = 48

// maxExampleSize is the largest response example written into an
// example block, as JSON: larger ones make the file hard to read.
const maxExampleSize = 4096

// successResponse is the operation's first 2xx response (200 before
// 201, ..., then 2XX), nil when it has none.
func successResponse(op *Operation) *Response {
	if op.Responses == nil {
		return nil
	}
	m := op.Responses
	codes := make([]string, 0, len(m))
	for k := range m {
		if strings.HasPrefix(k, "2") {
			codes = append(codes, k)
		}
	}
	slices.Sort(codes) // "200" < "201" < "2XX"
	for _, k := range codes {
		if r := m[k]; r != nil {
			return r
		}
	}
	return nil
}

// field is one result field: its name, the key it reads and its schema.
type field struct {
	name, key string
	schema    *Schema
	typ       string
	depth     int // of typ, for hclType
	optional  bool
}

// result writes the result block for a JSON response: a field per
// top-level property of an object, or one field (items, value) for an
// array or a scalar. It returns the fields, for the example.
func (c *converter) result(w *writer, resp *Response) []field {
	if resp == nil {
		return nil
	}
	media, _ := jsonMedia(resp.Content)
	if media == nil {
		return nil
	}
	s := merged(media.Schema)
	var fields []field
	switch k := kind(s); k {
	case "object":
		names := uniqueNames{}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			ps := merged(s.Properties[name])
			if ps != nil && ps.WriteOnly || name == "" {
				// A property without a name has no path that reads it
				// alone (an empty one would read the whole answer).
				continue
			}
			if len(fields) == maxResultFields {
				break
			}
			typ, _ := hclType(ps, 1)
			fields = append(fields, field{name: names.take(identifier(name, "field")), key: name, schema: ps, typ: typ, depth: 1,
				optional: !slices.Contains(s.Required, name) || nullable(ps)})
		}
	case "array":
		typ, _ := hclType(s, 0)
		fields = []field{{name: "items", schema: s, typ: typ}}
	case "string", "integer", "number", "boolean":
		typ, _ := hclType(s, 0)
		fields = []field{{name: "value", schema: s, typ: typ, optional: nullable(s)}}
	}
	if len(fields) == 0 {
		return nil
	}
	w.open("result")
	for _, f := range fields {
		w.open("field %s", quote(f.name))
		path := "@this"
		if f.key != "" {
			path = gjsonKey(f.key)
		}
		w.attr("path", quote(path))
		w.attr("type", f.typ)
		if f.schema != nil {
			if d := brief(f.schema.Description, 200); d != "" {
				w.attr("description", quote(d))
			}
		}
		if f.optional {
			w.attr("optional", "true")
		}
		w.close()
	}
	w.close()
	return fields
}

// nullable reports whether a schema allows null.
func nullable(s *Schema) bool {
	return s != nil && (s.Nullable || includesNull(s.Type))
}

// gjsonKey escapes a key for a gjson path, so that it reads that key
// and nothing else.
func gjsonKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 0x7f) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// example writes an example block when the document gives a response
// example, and every required param has an example value: the result
// expected is the example mapped through the fields, as toolhost
// validate will map it. Anything that does not fit (a required field
// missing, a value of another type) means no example, rather than a
// failing one.
func (c *converter) example(w *writer, params []*param, resp *Response, fields []field) {
	if resp == nil || len(fields) == 0 {
		return
	}
	media, _ := jsonMedia(resp.Content)
	ex, ok := mediaExample(media)
	if !ok {
		return
	}
	ex = normalize(ex)
	text, err := json.Marshal(ex)
	if err != nil || len(text) > maxExampleSize {
		return
	}
	args := orderedObject{}
	for _, p := range params {
		if !p.required {
			continue
		}
		v := normalize(p.example)
		if !p.hasEx || p.simple && (!fits(v, p.typ) || p.schema != nil && !allows(p.schema, p.typ, v)) {
			return
		}
		args = append(args, keyValue{p.name, v})
	}
	expected := orderedObject{}
	for _, f := range fields {
		var v any
		present := true
		if f.key == "" {
			v = ex
		} else {
			obj, isObj := ex.(map[string]any)
			if !isObj {
				return
			}
			v, present = obj[f.key]
		}
		if !present || v == nil {
			if !f.optional {
				return
			}
			continue
		}
		pv, ok := project(v, f.schema, f.depth)
		if !ok {
			return
		}
		expected = append(expected, keyValue{f.name, pv})
	}
	w.open("example %s", quote("from the document"))
	if len(args) > 0 {
		w.attr("args", value(args, w.depth))
	}
	w.attr("response", quote(string(text)))
	w.attr("result", value(expected, w.depth))
	w.close()
}

// normalize makes a decoded example plain JSON: YAML's maps and
// numbers become what encoding/json gives.
func normalize(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(data, &out) != nil {
		return v
	}
	return out
}

// project is v converted to the HCL type of s at depth (hclType's), as
// a result field converts it (object attributes not in the type
// dropped), and whether it converts at all.
func project(v any, s *Schema, depth int) (any, bool) {
	s = merged(s)
	typ, _ := hclType(s, depth)
	switch {
	case typ == "any" || strings.HasPrefix(typ, "map("):
		return v, true
	case typ == "string" || typ == "bool" || typ == "number":
		return v, fits(v, typ)
	case typ == "integer":
		f, ok := number(v)
		return v, ok && f == math.Trunc(f)
	case strings.HasPrefix(typ, "list("):
		list, ok := v.([]any)
		if !ok || s == nil {
			return nil, false
		}
		out := make([]any, len(list))
		for i, e := range list {
			if e == nil {
				return nil, false
			}
			if out[i], ok = project(e, s.Items, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	case strings.HasPrefix(typ, "object("):
		obj, ok := v.(map[string]any)
		if !ok || s == nil {
			return nil, false
		}
		out := map[string]any{}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			ps := merged(s.Properties[name])
			ev, present := obj[name]
			if !present || ev == nil {
				if slices.Contains(s.Required, name) && !nullable(ps) {
					return nil, false
				}
				continue
			}
			if out[name], ok = project(ev, ps, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}
