package openapi

import (
	"strings"

	"github.com/pb33f/libopenapi/datamodel"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	lowv3 "github.com/pb33f/libopenapi/datamodel/low/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// fromV3 makes the Document of an OpenAPI 3.x document.
func fromV3(info *datamodel.SpecInfo, config *datamodel.DocumentConfiguration) (*Document, error) {
	lowDoc, err := lowv3.CreateDocumentFromConfig(info, config)
	if err != nil {
		return nil, err
	}
	d := v3.NewDocument(lowDoc)
	s := newSchemas()
	s.siblings = strings.HasPrefix(d.Version, "3.1")
	out := &Document{OpenAPI: d.Version, Servers: servers3(d.Servers), Security: security(d.Security), Webhooks: count3(d.Webhooks)}
	if d.Info != nil {
		out.Info = &Info{Title: d.Info.Title, Version: d.Info.Version}
	}
	if d.Components != nil {
		for name, sc := range d.Components.SecuritySchemes.FromOldest() {
			if sc != nil {
				if out.SecuritySchemes == nil {
					out.SecuritySchemes = map[string]*SecurityScheme{}
				}
				out.SecuritySchemes[name] = &SecurityScheme{Type: sc.Type, In: sc.In, Name: sc.Name, Scheme: sc.Scheme}
			}
		}
	}
	if d.Paths != nil {
		out.Paths = map[string]*PathItem{}
		for path, item := range d.Paths.PathItems.FromOldest() {
			if item != nil {
				out.Paths[path] = s.pathItem3(item)
			}
		}
	}
	return out, nil
}

// count3 is the number of entries of an ordered map, 0 for nil.
func count3[K comparable, V any](m *orderedmap.Map[K, V]) int {
	n := 0
	for range m.FromOldest() {
		n++
	}
	return n
}

// servers3 are the servers of a list.
func servers3(list []*v3.Server) []*Server {
	var out []*Server
	for _, sv := range list {
		if sv == nil {
			continue
		}
		s := &Server{URL: sv.URL, Variables: map[string]string{}}
		for name, v := range sv.Variables.FromOldest() {
			if v != nil {
				s.Variables[name] = v.Default
			}
		}
		out = append(out, s)
	}
	return out
}

// security is a security list: nil stays nil, and an alternative that
// names no scheme ({}) is an empty requirement.
func security(list []*base.SecurityRequirement) []SecurityRequirement {
	if list == nil {
		return nil
	}
	out := make([]SecurityRequirement, 0, len(list))
	for _, r := range list {
		req := SecurityRequirement{}
		if r != nil {
			for name, scopes := range r.Requirements.FromOldest() {
				req[name] = scopes
			}
		}
		out = append(out, req)
	}
	return out
}

// pathItem3 is a path item of a 3.x document.
func (s *schemas) pathItem3(item *v3.PathItem) *PathItem {
	p := &PathItem{Operations: map[string]*Operation{}, Servers: servers3(item.Servers)}
	for _, param := range item.Parameters {
		if param != nil {
			p.Parameters = append(p.Parameters, s.parameter3(param))
		}
	}
	for method, op := range map[string]*v3.Operation{
		"GET": item.Get, "HEAD": item.Head, "POST": item.Post, "PUT": item.Put, "PATCH": item.Patch,
		"DELETE": item.Delete, "OPTIONS": item.Options, "TRACE": item.Trace,
	} {
		if op != nil {
			p.Operations[method] = s.operation3(op)
		}
	}
	return p
}

// operation3 is an operation of a 3.x document.
func (s *schemas) operation3(op *v3.Operation) *Operation {
	o := &Operation{
		OperationID: op.OperationId, Summary: op.Summary, Description: op.Description,
		Deprecated: op.Deprecated != nil && *op.Deprecated, Tags: op.Tags,
		Callbacks: count3(op.Callbacks), Servers: servers3(op.Servers),
	}
	if low := op.GoLow(); low != nil && low.Security.ValueNode != nil {
		reqs := security(op.Security)
		if reqs == nil {
			reqs = []SecurityRequirement{}
		}
		o.Security = &reqs
	}
	for _, param := range op.Parameters {
		if param != nil {
			o.Parameters = append(o.Parameters, s.parameter3(param))
		}
	}
	if rb := op.RequestBody; rb != nil {
		o.RequestBody = &RequestBody{Description: rb.Description, Required: rb.Required != nil && *rb.Required, Content: s.content3(rb.Content)}
	}
	if op.Responses != nil {
		o.Responses = map[string]*Response{}
		for code, r := range op.Responses.Codes.FromOldest() {
			if r != nil {
				o.Responses[code] = &Response{Content: s.content3(r.Content)}
			}
		}
	}
	return o
}

// parameter3 is a parameter of a 3.x document.
func (s *schemas) parameter3(p *v3.Parameter) *Parameter {
	return &Parameter{
		Name: p.Name, In: p.In, Description: p.Description, Style: p.Style,
		Required: p.Required != nil && *p.Required, Explode: p.Explode,
		Schema: s.schema(p.Schema), Content: s.content3(p.Content),
		Example: nodeValue(p.Example), Examples: examples(p.Examples),
	}
}

// content3 is the media types of a body or a parameter.
func (s *schemas) content3(c *orderedmap.Map[string, *v3.MediaType]) map[string]*MediaType {
	if c == nil {
		return nil
	}
	out := map[string]*MediaType{}
	for name, mt := range c.FromOldest() {
		if mt != nil {
			out[name] = &MediaType{Schema: s.schema(mt.Schema), Example: nodeValue(mt.Example), Examples: examples(mt.Examples)}
		}
	}
	return out
}

// examples are the values of named examples, those that have one.
func examples(m *orderedmap.Map[string, *base.Example]) map[string]any {
	var out map[string]any
	for name, ex := range m.FromOldest() {
		if ex == nil {
			continue
		}
		if v := nodeValue(ex.Value); v != nil {
			if out == nil {
				out = map[string]any{}
			}
			out[name] = v
		}
	}
	return out
}
