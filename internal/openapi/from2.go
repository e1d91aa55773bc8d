package openapi

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	v2 "github.com/pb33f/libopenapi/datamodel/high/v2"
	"github.com/pb33f/libopenapi/datamodel/low"
	lowv2 "github.com/pb33f/libopenapi/datamodel/low/v2"
)

// fromV2 makes the Document of a Swagger 2.0 document, as OpenAPI 3.0
// words it: host, basePath and schemes become servers; body and
// formData parameters a request body of the media types the operation
// consumes; a response's schema its content in the media types it
// produces; basic authentication an http scheme.
func fromV2(doc libopenapi.Document) (*Document, error) {
	m, err := doc.BuildV2Model()
	if err != nil {
		return nil, err
	}
	d := &m.Model
	c := &conv2{doc: d, schemas: newSchemas()}
	out := &Document{OpenAPI: "3.0.3", Security: security(d.Security)}
	if d.Info != nil {
		out.Info = &Info{Title: d.Info.Title, Version: d.Info.Version}
	}
	if out.Servers, err = servers2(d); err != nil {
		return nil, err
	}
	if d.SecurityDefinitions != nil {
		for name, sc := range d.SecurityDefinitions.Definitions.FromOldest() {
			if sc == nil {
				continue
			}
			if out.SecuritySchemes == nil {
				out.SecuritySchemes = map[string]*SecurityScheme{}
			}
			s := &SecurityScheme{Type: sc.Type, In: sc.In, Name: sc.Name}
			if sc.Type == "basic" {
				s.Type, s.Scheme = "http", "basic"
			}
			out.SecuritySchemes[name] = s
		}
	}
	if d.Paths != nil {
		out.Paths = map[string]*PathItem{}
		for path, item := range d.Paths.PathItems.FromOldest() {
			if item == nil {
				continue
			}
			p, err := c.pathItem(path, item)
			if err != nil {
				return nil, err
			}
			out.Paths[path] = p
		}
	}
	return out, nil
}

// servers2 is the server of host, basePath and schemes: one for each
// scheme (https when none is given), or the base path alone when there
// is no host (a relative URL, as 3.0 allows).
func servers2(d *v2.Swagger) ([]*Server, error) {
	if d.Host == "" {
		if d.BasePath == "" {
			return nil, nil
		}
		return []*Server{{URL: (&url.URL{Path: d.BasePath}).String()}}, nil
	}
	if strings.Contains(d.Host, "/") {
		return nil, fmt.Errorf("the host %q has a path in it, but Swagger 2.0's host is a host name (and port) only; move the path to basePath", d.Host)
	}
	schemes := d.Schemes
	if len(schemes) == 0 {
		schemes = []string{"https"}
	}
	basePath := d.BasePath
	if basePath == "" {
		basePath = "/"
	}
	var out []*Server
	for _, scheme := range schemes {
		out = append(out, &Server{URL: (&url.URL{Scheme: scheme, Host: d.Host, Path: basePath}).String()})
	}
	return out, nil
}

// conv2 converts the paths of a Swagger 2.0 document.
type conv2 struct {
	doc     *v2.Swagger
	schemas *schemas
}

// pathItem converts a path: its parameters, but for body and formData
// ones, which go to the request body of each of its operations that
// does not name its own of the same place and name.
func (c *conv2) pathItem(path string, item *v2.PathItem) (*PathItem, error) {
	p := &PathItem{Operations: map[string]*Operation{}}
	for _, param := range item.Parameters {
		if param != nil && param.In != "body" && param.In != "formData" {
			p.Parameters = append(p.Parameters, c.parameter(param))
		}
	}
	for method, op := range map[string]*v2.Operation{
		"GET": item.Get, "HEAD": item.Head, "POST": item.Post, "PUT": item.Put, "PATCH": item.Patch,
		"DELETE": item.Delete, "OPTIONS": item.Options,
	} {
		if op == nil {
			continue
		}
		o, err := c.operation(item, op)
		if err != nil {
			return nil, fmt.Errorf("the operation %s %s: %w", method, path, err)
		}
		p.Operations[method] = o
	}
	return p, nil
}

// operation converts an operation.
func (c *conv2) operation(item *v2.PathItem, op *v2.Operation) (*Operation, error) {
	o := &Operation{
		OperationID: op.OperationId, Summary: op.Summary, Description: op.Description,
		Deprecated: op.Deprecated, Tags: op.Tags,
	}
	if low := op.GoLow(); low != nil && low.Security.ValueNode != nil {
		reqs := security(op.Security)
		if reqs == nil {
			reqs = []SecurityRequirement{}
		}
		o.Security = &reqs
	}
	consumes := op.Consumes
	if len(consumes) == 0 {
		consumes = c.doc.Consumes
	}
	var body, form []*v2.Parameter
	take := func(p *v2.Parameter) {
		switch p.In {
		case "body":
			body = append(body, p)
		case "formData":
			form = append(form, p)
		}
	}
	for _, p := range item.Parameters {
		if p != nil && !slices.ContainsFunc(op.Parameters, func(q *v2.Parameter) bool { return q != nil && q.In == p.In && q.Name == p.Name }) {
			take(p)
		}
	}
	for _, p := range op.Parameters {
		if p == nil {
			continue
		}
		if p.In == "body" || p.In == "formData" {
			take(p)
			continue
		}
		o.Parameters = append(o.Parameters, c.parameter(p))
	}
	switch {
	case len(body) > 1:
		return nil, fmt.Errorf("it has %d body parameters, and Swagger 2.0 allows one; keep one", len(body))
	case len(body) == 1 && len(form) > 0:
		return nil, fmt.Errorf("it has a body parameter and formData ones, and Swagger 2.0 allows one or the other; keep one")
	case len(body) == 1:
		o.RequestBody = &RequestBody{Description: body[0].Description, Required: isTrue(body[0].Required),
			Content: c.content(c.schemas.schema(body[0].Schema), consumes, "*/*")}
	case len(form) > 0:
		o.RequestBody = c.formBody(form, consumes)
	}
	if op.Responses != nil {
		produces := op.Produces
		if len(produces) == 0 {
			produces = c.doc.Produces
		}
		o.Responses = map[string]*Response{}
		for code, r := range op.Responses.Codes.FromOldest() {
			if r != nil {
				o.Responses[code] = c.response(r, produces)
			}
		}
	}
	return o, nil
}

// content is a body of schema in each media type of types, or in
// fallback when there are none.
func (c *conv2) content(schema *Schema, types []string, fallback string) map[string]*MediaType {
	if len(types) == 0 {
		types = []string{fallback}
	}
	out := map[string]*MediaType{}
	for _, t := range types {
		out[t] = &MediaType{Schema: schema}
	}
	return out
}

// formBody is the request body of formData parameters: an object of
// them, in the media types the operation consumes (a form's when it
// names none, which the import leaves out with a note: it sends JSON).
func (c *conv2) formBody(params []*v2.Parameter, consumes []string) *RequestBody {
	obj := &Schema{Type: []string{"object"}, Properties: map[string]*Schema{}}
	required := false
	for _, p := range params {
		s := simpleSchema(lowParam(p.GoLow()), p.Enum, p.Default)
		s.Description = p.Description
		obj.Properties[p.Name] = s
		if isTrue(p.Required) {
			obj.Required = append(obj.Required, p.Name)
			required = true
		}
	}
	slices.Sort(obj.Required)
	return &RequestBody{Required: required, Content: c.content(obj, consumes, "application/x-www-form-urlencoded")}
}

// response converts a response: its schema in each media type of
// produces (JSON when it names none), and its examples by media type.
func (c *conv2) response(r *v2.Response, produces []string) *Response {
	out := &Response{}
	if r.Schema != nil {
		out.Content = c.content(c.schemas.schema(r.Schema), produces, "application/json")
	}
	if r.Examples != nil {
		for mime, ex := range r.Examples.Values.FromOldest() {
			if out.Content == nil {
				out.Content = map[string]*MediaType{}
			}
			if out.Content[mime] == nil {
				out.Content[mime] = &MediaType{}
			}
			out.Content[mime].Example = nodeValue(ex)
		}
	}
	return out
}

// parameter converts a path, query or header parameter: its type,
// format, items and bounds become its schema, its collectionFormat a
// style (csv, the default, a comma-separated list).
func (c *conv2) parameter(p *v2.Parameter) *Parameter {
	out := &Parameter{Name: p.Name, In: p.In, Description: p.Description, Required: isTrue(p.Required)}
	if p.Schema != nil {
		out.Schema = c.schemas.schema(p.Schema)
	} else {
		out.Schema = simpleSchema(lowParam(p.GoLow()), p.Enum, p.Default)
	}
	if p.In == "query" && p.Type == "array" {
		explode := false
		switch p.CollectionFormat {
		case "ssv":
			out.Style = "spaceDelimited"
		case "pipes":
			out.Style = "pipeDelimited"
		case "multi":
			out.Style, explode = "form", true
		default:
			out.Style = "form"
		}
		out.Explode = &explode
	}
	return out
}

// isTrue is a *bool's value, false for nil.
func isTrue(b *bool) bool { return b != nil && *b }

// simple2 is what a Swagger 2.0 parameter and its items say of their
// value, as written (numbers as their nodes, for the bounds with
// fractions that libopenapi's model reads as integers).
type simple2 struct {
	typ, format, pattern                               low.NodeReference[string]
	min, max, minLength, maxLength, minItems, maxItems *yaml.Node
	exclusiveMin, exclusiveMax                         bool
	items                                              *lowv2.Items
}

// lowParam is the simple2 of a parameter.
func lowParam(p *lowv2.Parameter) simple2 {
	if p == nil {
		return simple2{}
	}
	s := simple2{typ: p.Type, format: p.Format, pattern: p.Pattern,
		min: p.Minimum.ValueNode, max: p.Maximum.ValueNode, minLength: p.MinLength.ValueNode, maxLength: p.MaxLength.ValueNode,
		minItems: p.MinItems.ValueNode, maxItems: p.MaxItems.ValueNode,
		exclusiveMin: p.ExclusiveMinimum.Value, exclusiveMax: p.ExclusiveMaximum.Value, items: p.Items.Value}
	return s
}

// lowItems is the simple2 of items.
func lowItems(it *lowv2.Items) simple2 {
	return simple2{typ: it.Type, format: it.Format, pattern: it.Pattern,
		min: it.Minimum.ValueNode, max: it.Maximum.ValueNode, minLength: it.MinLength.ValueNode, maxLength: it.MaxLength.ValueNode,
		minItems: it.MinItems.ValueNode, maxItems: it.MaxItems.ValueNode,
		exclusiveMin: it.ExclusiveMinimum.Value, exclusiveMax: it.ExclusiveMaximum.Value, items: it.Items.Value}
}

// simpleSchema is the schema a simple2 describes, with its enum and
// default; a file is a binary string.
func simpleSchema(s simple2, enum []*yaml.Node, def *yaml.Node) *Schema {
	out := &Schema{Format: s.format.Value, Pattern: s.pattern.Value, Default: nodeValue(def)}
	if t := s.typ.Value; t == "file" {
		out.Type, out.Format = []string{"string"}, "binary"
	} else if t != "" {
		out.Type = []string{t}
	}
	for _, e := range enum {
		out.Enum = append(out.Enum, nodeValue(e))
	}
	out.Min, out.Max = number2(s.min), number2(s.max)
	if s.exclusiveMin {
		out.ExclusiveMin.Bool = &s.exclusiveMin
	}
	if s.exclusiveMax {
		out.ExclusiveMax.Bool = &s.exclusiveMax
	}
	if n := number2(s.minLength); n != nil && *n > 0 {
		out.MinLength = uint64(*n)
	}
	if n := number2(s.maxLength); n != nil && *n >= 0 {
		u := uint64(*n)
		out.MaxLength = &u
	}
	if n := number2(s.minItems); n != nil && *n > 0 {
		out.MinItems = uint64(*n)
	}
	if n := number2(s.maxItems); n != nil && *n >= 0 {
		u := uint64(*n)
		out.MaxItems = &u
	}
	if s.items != nil {
		var itemEnum []*yaml.Node
		for _, e := range s.items.Enum.Value {
			itemEnum = append(itemEnum, e.Value)
		}
		out.Items = simpleSchema(lowItems(s.items), itemEnum, s.items.Default.Value)
	}
	return out
}

// number2 is the number a scalar node holds, nil for none.
func number2(n *yaml.Node) *float64 {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil {
		return nil
	}
	return &f
}

