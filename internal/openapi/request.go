package openapi

import (
	"fmt"
	"golang.org/x/net/http/httpguts"
	"maps"
	"slices"
	"strings"
)

// maxBodyParams is the most properties of a JSON body flattened into
// params; a larger body is one input_schema property.
const maxBodyParams = 32

// jsonMedia returns the JSON media type of content (application/json,
// or a +json type), and its name.
func jsonMedia(content map[string]*MediaType) (*MediaType, string) {
	for _, k := range slices.Sorted(maps.Keys(content)) {
		mt := strings.ToLower(strings.TrimSpace(strings.Split(k, ";")[0]))
		if mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "*/*" {
			return content[k], k
		}
	}
	return nil, ""
}

// body returns the params of an operation's request body: its
// properties, for a JSON object; the body whole otherwise (an array, a
// scalar, a union, a map). note says what was left out; skip, when set, why the
// operation cannot be a tool (a required body toolhost cannot send).
func (c *converter) body(o operation, names *uniqueNames) (params []*param, note, skip string) {
	if o.op.RequestBody == nil {
		return nil, "", ""
	}
	rb := o.op.RequestBody
	media, _ := jsonMedia(rb.Content)
	if media == nil {
		types := slices.Sorted(maps.Keys(rb.Content))
		why := fmt.Sprintf("a request body of type %s (only JSON bodies are imported; multipart and form bodies need a hand-written body)", strings.Join(types, ", "))
		if rb.Required {
			return nil, "", "it needs " + why
		}
		return nil, why, ""
	}
	ref := media.Schema
	s := merged(ref)
	var bodyEx map[string]any
	if ex, ok := mediaExample(media); ok {
		bodyEx, _ = ex.(map[string]any)
	}
	if kind(s) == "object" && len(s.Properties) > 0 && len(s.Properties) <= maxBodyParams &&
		s.AdditionalProperties == nil && len(s.OneOf) == 0 && len(s.AnyOf) == 0 {
		var props []*param
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			ps := merged(s.Properties[name])
			if ps != nil && ps.ReadOnly {
				continue
			}
			// A property that a param block cannot carry makes the
			// tool's arguments an input_schema, still one a property.
			typ, simple := hclType(ps, 1)
			p := &param{orig: name, in: "body", schema: ps, ref: s.Properties[name], typ: typ, simple: simple,
				required: rb.Required && slices.Contains(s.Required, name), sensitive: credential(name, "body", ps)}
			if ps != nil {
				p.desc = brief(ps.Description, 300)
			}
			if v, ok := bodyEx[name]; ok {
				p.example, p.hasEx = v, true
			} else {
				p.example, p.hasEx = schemaExample(ps)
			}
			p.name = names.take(identifier(name, "field"))
			props = append(props, p)
		}
		return props, "", ""
	}
	typ, simple := hclType(s, 0)
	p := &param{name: names.take("body"), orig: "body", in: "bodywhole", schema: s, ref: ref, typ: typ, simple: simple,
		required: rb.Required, desc: brief(rb.Description, 300)}
	if s == nil {
		p.typ, p.simple = "any", false
	}
	if ex, ok := mediaExample(media); ok {
		p.example, p.hasEx = ex, true
	}
	return []*param{p}, "", ""
}

// bodyMediaType is the JSON media type of o's request body as the
// document names it (application/merge-patch+json is not
// application/json to a server that patches), application/json for */*.
func bodyMediaType(o operation) string {
	if o.op.RequestBody == nil {
		return "application/json"
	}
	_, name := jsonMedia(o.op.RequestBody.Content)
	if name == "" || strings.HasPrefix(strings.TrimSpace(name), "*/*") {
		return "application/json"
	}
	return name
}

// mediaExample is a media type's example: its own, its first named
// one, or its schema's.
func mediaExample(m *MediaType) (any, bool) {
	if m == nil {
		return nil, false
	}
	if m.Example != nil {
		return m.Example, true
	}
	for _, k := range slices.Sorted(maps.Keys(m.Examples)) {
		if ex := m.Examples[k]; ex != nil {
			return ex, true
		}
	}
	return schemaExample(merged(m.Schema))
}

// security returns the headers and query parameters that carry the
// operation's credentials, each read from an environment variable and
// marked sensitive, and a note when its schemes have no such form. Of
// several alternatives the first that toolhost can send is taken.
func (c *converter) security(o operation) (headers, query orderedObject, note string) {
	reqs := c.doc.Security
	if o.op.Security != nil {
		reqs = *o.op.Security
	}
	schemes := c.doc.SecuritySchemes
	var unsupported []string
	for _, req := range reqs {
		if len(req) == 0 {
			return nil, nil, "" // credentials are optional
		}
		var h, q orderedObject
		ok := true
		for _, name := range slices.Sorted(maps.Keys(req)) {
			s := schemes[name]
			if s == nil {
				unsupported = append(unsupported, fmt.Sprintf("%q (not among the document's securitySchemes)", name))
				ok = false
				break
			}
			switch {
			case s.Type == "apiKey" && s.In == "header" && !httpguts.ValidHeaderFieldName(s.Name):
				unsupported = append(unsupported, fmt.Sprintf("%q (its header %q is not a valid header name)", name, s.Name))
				ok = false
			case s.Type == "apiKey" && s.In == "query" && setIn(q, s.Name, false):
				unsupported = append(unsupported, fmt.Sprintf("%q (required together with another scheme that sets the same query parameter)", name))
				ok = false
			case s.Type == "apiKey" && s.In == "header" && setIn(h, s.Name, true),
				s.Type != "apiKey" && setIn(h, "Authorization", true):
				// Two schemes required together that need the same
				// header (bearer and basic, say) cannot both be sent.
				unsupported = append(unsupported, fmt.Sprintf("%q (required together with another scheme that sets the same header)", name))
				ok = false
			case s.Type == "apiKey" && (s.In == "header" || s.In == "query"):
				v := rawExpr(fmt.Sprintf(`sensitive(env(%q))`, c.env(c.prefix+"_"+strings.ToUpper(identifier(s.Name, "api_key")))))
				if s.In == "header" {
					h = append(h, keyValue{s.Name, v})
				} else {
					q = append(q, keyValue{s.Name, v})
				}
			case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"), s.Type == "oauth2", s.Type == "openIdConnect":
				h = append(h, keyValue{"Authorization", rawExpr(fmt.Sprintf(`sensitive("Bearer ${env(%q)}")`, c.env(c.prefix+"_TOKEN")))})
			case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
				user, pass := c.env(c.prefix+"_USERNAME"), c.env(c.prefix+"_PASSWORD")
				h = append(h, keyValue{"Authorization", rawExpr(fmt.Sprintf(`sensitive("Basic ${base64encode("${env(%q)}:${env(%q)}")}")`, user, pass))})
			default:
				where := s.Type
				if s.Type == "apiKey" {
					where = "an API key in a " + s.In
				} else if s.Type == "http" {
					where = "HTTP " + s.Scheme + " authentication"
				}
				unsupported = append(unsupported, fmt.Sprintf("%q (%s)", name, where))
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok {
			return h, q, ""
		}
	}
	if len(unsupported) > 0 {
		return nil, nil, "the security scheme " + strings.Join(unsupported, ", ") + ": add its credentials by hand"
	}
	return nil, nil, ""
}

// setIn reports whether kvs sets name already: a header's name in any
// case, as HTTP reads it; a query parameter's exactly.
func setIn(kvs orderedObject, name string, header bool) bool {
	return slices.ContainsFunc(kvs, func(kv keyValue) bool {
		return kv.k == name || header && strings.EqualFold(kv.k, name)
	})
}

// httpBlock writes the tool's http block: the URL from the base and the
// path, the query and headers from the params and credentials, and the
// JSON body.
func (c *converter) httpBlock(w *writer, o operation, params []*param, authHeaders, authQuery orderedObject) {
	w.open("http")
	w.attr("method", quote(o.method))
	base := fmt.Sprintf(`${env(%q)}`, c.prefix+"_BASE_URL")
	if u := c.opBase(o); u != "" {
		base = templateText(u)
	} else if c.baseURL != "" {
		base = fmt.Sprintf(`${env(%q, %s)}`, c.prefix+"_BASE_URL", quote(c.baseURL))
	}
	w.attr("url", `"`+base+c.pathTemplate(o.path, params)+`"`)
	var query, headers orderedObject
	var bodyProps orderedObject
	var whole *param
	optionalBody := false
	for _, p := range params {
		ref := rawExpr("param." + p.name)
		if p.sep != "" {
			ref = rawExpr(fmt.Sprintf("%s == null ? null : join(%s, %s)", ref, quote(p.sep), ref))
		}
		switch p.in {
		case "query":
			query = append(query, keyValue{p.orig, ref})
		case "header":
			headers = append(headers, keyValue{p.orig, ref})
		case "body":
			bodyProps = append(bodyProps, keyValue{p.orig, ref})
			optionalBody = optionalBody || !p.required
		case "bodywhole":
			whole = p
		}
	}
	query = append(query, authQuery...)
	if resp := successResponse(o.op); resp != nil {
		if m, _ := jsonMedia(resp.Content); m != nil {
			headers = append(headers, keyValue{"Accept", "application/json"})
		}
	}
	headers = append(headers, authHeaders...)
	if len(query) > 0 {
		w.attr("query", value(query, w.depth))
	}
	if len(headers) > 0 {
		w.attr("headers", value(headers, w.depth))
	}
	switch {
	case whole != nil && whole.required:
		w.attr("body", "jsonencode(param."+whole.name+")")
	case whole != nil:
		w.attr("body", fmt.Sprintf("param.%s == null ? null : jsonencode(param.%s)", whole.name, whole.name))
	case len(bodyProps) > 0 && optionalBody:
		// Properties left out are not sent, rather than sent as null.
		w.attr("body", "jsonencode({ for k, v in "+value(bodyProps, w.depth)+" : k => v if v != null })")
	case len(bodyProps) > 0:
		w.attr("body", "jsonencode("+value(bodyProps, w.depth)+")")
	}
	if whole != nil || len(bodyProps) > 0 {
		w.attr("content_type", quote(bodyMediaType(o)))
	}
	w.close()
}

// inputSchema writes the tool's arguments as an input_schema, for those
// that param blocks cannot carry (a nested body, a union).
func (c *converter) inputSchema(w *writer, params []*param) {
	var props orderedObject
	var required []any
	for _, p := range params {
		var s orderedObject
		if p.ref != nil {
			s = jsonSchema(p.ref, 0, nil)
		} else {
			s = orderedObject{{"type", "string"}}
		}
		if p.desc != "" && !slices.ContainsFunc(s, func(kv keyValue) bool { return kv.k == "description" }) {
			s = append(orderedObject{{"description", p.desc}}, s...)
		}
		props = append(props, keyValue{p.name, s})
		if p.required {
			required = append(required, p.name)
		}
	}
	schema := orderedObject{{"type", "object"}, {"properties", props}}
	if len(required) > 0 {
		schema = append(schema, keyValue{"required", required})
	}
	schema = append(schema, keyValue{"additionalProperties", false})
	w.attr("input_schema", value(schema, w.depth))
}

// firstMedia is the first media type of content by name, and its name:
// a parameter's content has exactly one.
func firstMedia(content map[string]*MediaType) (*MediaType, string) {
	for _, k := range slices.Sorted(maps.Keys(content)) {
		return content[k], k
	}
	return nil, ""
}
