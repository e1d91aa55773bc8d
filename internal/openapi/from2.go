package openapi

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel"
	v2 "github.com/pb33f/libopenapi/datamodel/high/v2"
	lowv2 "github.com/pb33f/libopenapi/datamodel/low/v2"
)

// fromV2 makes the Document of a Swagger 2.0 document, as OpenAPI 3.0
// words it: host, basePath and schemes become servers; body and
// formData parameters a request body of the media types the operation
// consumes; a response's schema its content in the media types it
// produces; basic authentication an http scheme.
func fromV2(info *datamodel.SpecInfo, config *datamodel.DocumentConfiguration) (*Document, error) {
	lowDoc, err := lowv2.CreateDocumentFromConfig(info, config)
	if err != nil {
		return nil, err
	}
	d := v2.NewSwaggerDocument(lowDoc)
	c := &conv2{doc: d, schemas: newSchemas(), root: info.RootNode}
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
	root    *yaml.Node
	// parents are the mapping nodes of the document by the key nodes
	// in them, made at the first node call.
	parents map[*yaml.Node]*yaml.Node
}

// node is the mapping node a parameter is written in, nil when it is
// not found: libopenapi's model reads a 2.0 parameter's bounds as
// integers, so its keywords are read from the document itself.
func (c *conv2) node(p *v2.Parameter) *yaml.Node {
	low := p.GoLow()
	if low == nil || low.Name.KeyNode == nil {
		return nil
	}
	if c.parents == nil {
		c.parents = map[*yaml.Node]*yaml.Node{}
		var walk func(n *yaml.Node, depth int)
		walk = func(n *yaml.Node, depth int) {
			if n == nil || depth > maxValueDepth {
				return
			}
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					c.parents[n.Content[i]] = n
				}
			}
			for _, ch := range n.Content {
				walk(ch, depth+1)
			}
		}
		walk(c.root, 0)
	}
	return c.parents[low.Name.KeyNode]
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
// them, in the form media types the operation consumes
// (application/x-www-form-urlencoded when it names none: formData is
// always a form), which the import leaves out with a note.
func (c *conv2) formBody(params []*v2.Parameter, consumes []string) *RequestBody {
	obj := &Schema{Type: []string{"object"}, Properties: map[string]*Schema{}}
	required := false
	for _, p := range params {
		s := simpleSchema(c.node(p), 0)
		s.Description = p.Description
		obj.Properties[p.Name] = s
		if isTrue(p.Required) {
			obj.Required = append(obj.Required, p.Name)
			required = true
		}
	}
	slices.Sort(obj.Required)
	var forms []string
	for _, t := range consumes {
		if mt := strings.ToLower(strings.TrimSpace(strings.Split(t, ";")[0])); mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data" {
			forms = append(forms, t)
		}
	}
	return &RequestBody{Required: required, Content: c.content(obj, forms, "application/x-www-form-urlencoded")}
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
		out.Schema = simpleSchema(c.node(p), 0)
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

// simpleSchema is the schema of a Swagger 2.0 parameter that is not a
// body, or of its items, read from its mapping node m (its type,
// format, pattern, enum, default, bounds and items are JSON Schema's
// keywords): a file is a binary string.
func simpleSchema(m *yaml.Node, depth int) *Schema {
	out := &Schema{}
	if m == nil || m.Kind != yaml.MappingNode || depth > maxSchemaDepth {
		return out
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i].Value, m.Content[i+1]
		switch k {
		case "type":
			if v.Value == "file" {
				out.Type, out.Format = []string{"string"}, "binary"
			} else if v.Value != "" {
				out.Type = []string{v.Value}
			}
		case "format":
			if out.Format == "" {
				out.Format = v.Value
			}
		case "pattern":
			out.Pattern = v.Value
		case "default":
			out.Default = nodeValue(v)
		case "enum":
			for _, e := range v.Content {
				out.Enum = append(out.Enum, nodeValue(e))
			}
		case "minimum":
			out.Min = number2(v)
		case "maximum":
			out.Max = number2(v)
		case "exclusiveMinimum", "exclusiveMaximum":
			bound := &out.ExclusiveMin
			if k == "exclusiveMaximum" {
				bound = &out.ExclusiveMax
			}
			if b, ok := nodeValue(v).(bool); ok && b {
				bound.Bool = &b
			} else if f := number2(v); f != nil {
				bound.Value = f // 3.1's, beside a $ref
			}
		case "minLength":
			out.MinLength = count2(v)
		case "maxLength":
			n := count2(v)
			out.MaxLength = &n
		case "minItems":
			out.MinItems = count2(v)
		case "maxItems":
			n := count2(v)
			out.MaxItems = &n
		case "items":
			out.Items = simpleSchema(v, depth+1)
		}
	}
	return out
}

// count2 is the count a scalar node holds, 0 for none.
func count2(n *yaml.Node) uint64 {
	if f := number2(n); f != nil && *f > 0 {
		return uint64(*f)
	}
	return 0
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
