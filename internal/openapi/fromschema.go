package openapi

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/datamodel/low"
	lowbase "github.com/pb33f/libopenapi/datamodel/low/base"
)

// schemas makes the Schemas of a document's schema proxies: one
// *Schema for each $ref target, so that schemas reached twice are
// shared and a cycle is a cycle of pointers, not an endless recursion.
type schemas struct {
	byRef map[string]*Schema
	// siblings is whether keywords beside a $ref apply (OpenAPI 3.1),
	// or are ignored (3.0, 2.0).
	siblings bool
}

// newSchemas is a schemas with none made yet.
func newSchemas() *schemas {
	return &schemas{byRef: map[string]*Schema{}}
}

// schema is the Schema of a proxy, nil for none (or one that does not
// build, which the model's build has reported).
func (s *schemas) schema(sp *base.SchemaProxy) *Schema {
	if sp == nil {
		return nil
	}
	ref := ""
	if sp.IsReference() {
		ref = sp.GetReference()
		if n := refNode(sp); s.siblings && hasSiblings(n) {
			return s.withSiblings(sp, n)
		}
		if out, ok := s.byRef[ref]; ok {
			return out
		}
	}
	v := sp.Schema()
	if v == nil {
		return nil
	}
	out := &Schema{}
	if ref != "" {
		s.byRef[ref] = out // before its parts, which may lead back to it
	}
	s.fill(out, v)
	return out
}

// list is the Schemas of a list of proxies.
func (s *schemas) list(sps []*base.SchemaProxy) []*Schema {
	var out []*Schema
	for _, sp := range sps {
		if v := s.schema(sp); v != nil {
			out = append(out, v)
		}
	}
	return out
}

// fill sets out from a libopenapi schema.
func (s *schemas) fill(out *Schema, v *base.Schema) {
	if v.BooleanSchema != nil {
		return // true (anything) or false: no keyword the import reads
	}
	out.Type = v.Type
	out.Nullable = v.Nullable != nil && *v.Nullable
	out.ReadOnly = v.ReadOnly != nil && *v.ReadOnly
	out.WriteOnly = v.WriteOnly != nil && *v.WriteOnly
	out.Description, out.Format, out.Pattern = v.Description, v.Format, v.Pattern
	for _, e := range v.Enum {
		out.Enum = append(out.Enum, nodeValue(e))
	}
	out.Const, out.Default, out.Example = nodeValue(v.Const), nodeValue(v.Default), nodeValue(v.Example)
	for _, e := range v.Examples {
		out.Examples = append(out.Examples, nodeValue(e))
	}
	out.Min, out.Max = v.Minimum, v.Maximum
	out.ExclusiveMin, out.ExclusiveMax = bound(v.ExclusiveMinimum), bound(v.ExclusiveMaximum)
	out.MinLength, out.MaxLength = unsigned(v.MinLength), unsignedPtr(v.MaxLength)
	out.MinItems, out.MaxItems = unsigned(v.MinItems), unsignedPtr(v.MaxItems)
	if v.Items != nil && v.Items.IsA() {
		out.Items = s.schema(v.Items.A)
	}
	if v.Properties != nil {
		out.Properties = map[string]*Schema{}
		for name, p := range v.Properties.FromOldest() {
			if ps := s.schema(p); ps != nil {
				out.Properties[name] = ps
			} else {
				out.Properties[name] = &Schema{}
			}
		}
	}
	out.Required = v.Required
	if ap := v.AdditionalProperties; ap != nil {
		if ap.IsA() {
			out.AdditionalProperties = s.schema(ap.A)
		} else {
			out.NoAdditionalProperties = !ap.B
		}
	}
	out.AllOf, out.OneOf, out.AnyOf = s.list(v.AllOf), s.list(v.OneOf), s.list(v.AnyOf)
}

// bound is an exclusive bound: 3.0's boolean or 3.1's number.
func bound(d *base.DynamicValue[bool, float64]) Bound {
	switch {
	case d == nil:
		return Bound{}
	case d.IsA():
		b := d.A
		return Bound{Bool: &b}
	}
	f := d.B
	return Bound{Value: &f}
}

// unsigned is a count, 0 when unset or negative.
func unsigned(n *int64) uint64 {
	if n == nil || *n < 0 {
		return 0
	}
	return uint64(*n)
}

// unsignedPtr is a count, nil when unset.
func unsignedPtr(n *int64) *uint64 {
	if n == nil {
		return nil
	}
	u := unsigned(n)
	return &u
}

// nodeValue is the JSON value of a YAML node, as encoding/json decodes
// it (objects map[string]any, lists []any), but with YAML's integers as
// int and its timestamps and other scalars of no JSON type as strings;
// nil for no node and for null.
func nodeValue(n *yaml.Node) any {
	return nodeValueDepth(n, 0)
}

// maxValueDepth is how deep nodeValue reads a value; deeper parts are
// null (YAML's own reader stops far before).
const maxValueDepth = 256

// nodeValueDepth is nodeValue at a depth of nesting.
func nodeValueDepth(n *yaml.Node, depth int) any {
	if n == nil || depth > maxValueDepth {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return nodeValueDepth(n.Content[0], depth+1)
		}
		return nil
	case yaml.AliasNode:
		return nodeValueDepth(n.Alias, depth+1)
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				if m, ok := nodeValueDepth(n.Content[i+1], depth+1).(map[string]any); ok {
					for mk, mv := range m {
						if _, set := out[mk]; !set {
							out[mk] = mv
						}
					}
				}
				continue
			}
			out[k.Value] = nodeValueDepth(n.Content[i+1], depth+1)
		}
		return out
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			out[i] = nodeValueDepth(c, depth+1)
		}
		return out
	}
	return scalarValue(n)
}

// scalarValue is the JSON value of a YAML scalar.
func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int
		if n.Decode(&i) == nil {
			return i
		}
		var u uint64
		if n.Decode(&u) == nil {
			return u
		}
		if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil {
			return f
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return n.Value
}

// hasSiblings reports whether a mapping with a $ref has keywords beside
// it (extensions aside).
func hasSiblings(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != "$ref" && !strings.HasPrefix(k, "x-") {
			return true
		}
	}
	return false
}

// siblingAnnotations are the keywords beside a 3.1 $ref that describe
// rather than constrain: they replace the target's own.
var siblingAnnotations = map[string]bool{
	"title": true, "description": true, "default": true, "example": true, "examples": true,
	"readOnly": true, "writeOnly": true, "deprecated": true, "$comment": true,
}

// withSiblings is the schema of a 3.1 $ref with keywords beside it (n),
// as kin-openapi read it: a copy of the target with the annotations
// beside the $ref in place of its own, and the assertions beside it
// (bounds, lengths, a pattern, an enum) as one more allOf part.
func (s *schemas) withSiblings(sp *base.SchemaProxy, n *yaml.Node) *Schema {
	ref := sp.GetReference()
	target, ok := s.byRef[ref]
	if !ok {
		v := sp.Schema()
		if v == nil {
			return nil
		}
		target = &Schema{}
		s.byRef[ref] = target
		s.fill(target, v)
	}
	out := *target
	assert := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		switch {
		case k == "$ref" || strings.HasPrefix(k, "x-"):
		case k == "description":
			out.Description = v.Value
		case k == "default":
			out.Default = nodeValue(v)
		case k == "example":
			out.Example = nodeValue(v)
		case k == "examples":
			out.Examples = nil
			for _, e := range v.Content {
				out.Examples = append(out.Examples, nodeValue(e))
			}
		case k == "readOnly" || k == "writeOnly":
			b, _ := nodeValue(v).(bool)
			if k == "readOnly" {
				out.ReadOnly = b
			} else {
				out.WriteOnly = b
			}
		case siblingAnnotations[k]:
		default:
			assert.Content = append(assert.Content, n.Content[i], v)
		}
	}
	if len(assert.Content) > 0 {
		out.AllOf = append(slices.Clone(out.AllOf), s.besideRef(sp, assert))
	}
	return &out
}

// besideRef is the schema of the assertions beside a 3.1 $ref (assert,
// a mapping without the $ref), read as any other schema of the document
// is: properties, required, items and the $refs in them included. Built
// with the $ref's own index and context, a $ref in them resolves as one
// beside it would. When libopenapi cannot build it, the keywords
// simpleSchema reads are kept.
func (s *schemas) besideRef(sp *base.SchemaProxy, assert *yaml.Node) *Schema {
	if ref := sp.GoLow(); ref != nil {
		ctx := ref.GetContext()
		if ctx == nil {
			ctx = context.Background()
		}
		proxy := &lowbase.SchemaProxy{}
		if err := proxy.Build(ctx, nil, assert, ref.GetIndex()); err == nil {
			if out := s.schema(base.NewSchemaProxy(&low.NodeReference[*lowbase.SchemaProxy]{Value: proxy, ValueNode: assert})); out != nil {
				return out
			}
		}
	}
	return simpleSchema(assert, 0)
}

// refNode is the mapping a $ref is written in, with the keywords beside
// it, nil when libopenapi does not say.
func refNode(sp *base.SchemaProxy) *yaml.Node {
	if low := sp.GoLow(); low != nil {
		return low.GetReferenceNode()
	}
	return nil
}
