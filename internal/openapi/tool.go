package openapi

import (
	"fmt"
	"golang.org/x/net/http/httpguts"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/toolhost/toolhost/internal/redact"
)

// param is one argument of a tool: a path, query or header parameter,
// a property of a flattened JSON body, or the body whole.
type param struct {
	name     string // in HCL, unique in the tool
	orig     string // in the request
	in       string // path, query, header, body (a property), bodywhole
	schema   *Schema
	ref      *Schema
	typ      string
	simple   bool
	required bool
	desc     string
	example  any
	hasEx    bool
	// sep joins a query list's items into one value (explode false,
	// or a delimited style), and a header's or a path's list; "" repeats
	// a query key for each item.
	sep string
	// sensitive marks a credential: a password, a token, a key.
	sensitive bool
}

// credential reports whether an argument is a credential, by its format
// (password) or, outside the path, its name in the request (X-Api-Token,
// client_secret): its param is then sensitive, kept out of logs and
// error messages. A path's {key} or {code} names a thing, not a secret.
func credential(name, in string, s *Schema) bool {
	return in != "path" && redact.SensitiveName(name) || s != nil && s.Format == "password"
}

// skippedHeaders are header parameters OpenAPI says to ignore: the
// request's media types and credentials come from elsewhere.
var skippedHeaders = []string{"accept", "content-type", "authorization"}

// tool writes the tool for one operation to w, or returns why it cannot
// (what the comment at the top then says).
func (c *converter) tool(w *writer, o operation) string {
	if o.method == "TRACE" {
		return "TRACE is not a method an http tool sends"
	}
	if strings.ContainsFunc(o.path, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return "its path has spaces or control characters, which a URL cannot hold"
	}
	headers, query, authNote := c.security(o)
	names := uniqueNames{}
	params, notes, skip := parameters(o, &names, headers, query)
	if skip != "" {
		return skip
	}
	body, bodyNote, skip := c.body(o, &names)
	if skip != "" {
		return skip
	}
	if bodyNote != "" {
		notes = append(notes, bodyNote)
	}
	params = append(params, body...)
	if name := undefinedPathParam(o.path, params); name != "" {
		return fmt.Sprintf("its path names {%s}, which none of its parameters defines, so no URL can be made for it", name)
	}
	if o.op.Callbacks > 0 {
		notes = append(notes, fmt.Sprintf("callbacks (%d): a tool cannot receive them", o.op.Callbacks))
	}
	useSchema := slices.ContainsFunc(params, func(p *param) bool { return !p.simple })
	for _, p := range params {
		if p.typ == "any" && p.in != "bodywhole" {
			useSchema = true
		}
	}
	if authNote != "" {
		notes = append(notes, authNote)
	}

	name := c.toolName(o)
	w.comment(o.method + " " + o.path)
	if len(notes) > 0 {
		w.comment("Left out: " + strings.Join(notes, "; ") + ".")
	}
	w.open("tool %s", quote(name))
	d := description(o.op)
	if d == "" {
		d = o.method + " " + o.path // better than nothing to a model
	}
	w.attr("description", quote(d))
	w.open("annotations")
	switch o.method {
	case "GET", "HEAD", "OPTIONS":
		w.attr("read_only_hint", "true")
	case "DELETE":
		w.attr("destructive_hint", "true")
		w.attr("idempotent_hint", "true")
	case "PUT":
		w.attr("destructive_hint", "false")
		w.attr("idempotent_hint", "true")
	default:
		w.attr("destructive_hint", "false")
	}
	w.attr("open_world_hint", "true")
	w.close()
	if o.method == "DELETE" {
		w.attr("confirm", `"`+o.method+" "+c.pathTemplate(o.path, params)+`: go ahead?"`)
	}
	if useSchema {
		c.inputSchema(w, params)
	} else {
		for _, p := range params {
			writeParam(w, p)
		}
	}
	c.httpBlock(w, o, params, headers, query)
	resp := successResponse(o.op)
	fields := c.result(w, resp)
	c.example(w, params, resp, fields)
	w.close()
	return ""
}

// parameters returns the params of an operation's path, query and
// header parameters (those of the path item, overridden by the
// operation's of the same name and place), named from names; notes say
// what was left out, skip why the operation cannot be a tool. The
// headers and query parameters the credentials set (authHeaders,
// authQuery) are left out: they come from the environment, never from
// the model, and a request cannot carry both.
func parameters(o operation, names *uniqueNames, authHeaders, authQuery orderedObject) (params []*param, notes []string, skip string) {
	// Parameters of the path item, then of the operation, which
	// override those with the same name and place.
	all := map[string]*Parameter{}
	var order []string
	for _, list := range [][]*Parameter{o.item.Parameters, o.op.Parameters} {
		for _, p := range list {
			if p == nil {
				continue
			}
			k := p.In + "\x00" + p.Name
			if _, ok := all[k]; !ok {
				order = append(order, k)
			}
			all[k] = p
		}
	}
	for _, k := range order {
		p := all[k]
		switch {
		case p.In == "cookie":
			if p.Required {
				return nil, nil, fmt.Sprintf("its required cookie %q: http tools send no cookies", p.Name)
			}
			notes = append(notes, fmt.Sprintf("cookie %q", p.Name))
			continue
		case p.In == "header" && slices.Contains(skippedHeaders, strings.ToLower(p.Name)),
			p.In == "header" && setIn(authHeaders, p.Name, true), p.In == "query" && setIn(authQuery, p.Name, false):
			continue
		case p.In == "header" && !httpguts.ValidHeaderFieldName(p.Name):
			if p.Required {
				return nil, nil, fmt.Sprintf("its required header %q is not a valid header name, so no request can carry it", p.Name)
			}
			notes = append(notes, fmt.Sprintf("header parameter %q (not a valid header name)", p.Name))
			continue
		case p.In != "path" && p.In != "query" && p.In != "header":
			return nil, nil, fmt.Sprintf("parameter %q is in %q, which is not a place OpenAPI defines", p.Name, p.In)
		}
		ref := p.Schema
		if ref == nil {
			if mt, _ := firstMedia(p.Content); mt != nil {
				ref = mt.Schema
			}
		}
		s := merged(ref)
		typ, simple := hclType(s, 0)
		if s == nil {
			typ, simple = "string", true
		}
		if !simple && p.In != "path" {
			// A query or header object (deepObject, say) has no form
			// an http tool's query map writes.
			if p.Required {
				return nil, nil, fmt.Sprintf("its required %s parameter %q is an object or a union, which toolhost does not encode in a %s", p.In, p.Name, p.In)
			}
			notes = append(notes, fmt.Sprintf("%s parameter %q (an object or a union)", p.In, p.Name))
			continue
		}
		if !simple {
			typ = "string"
		}
		pr := &param{
			name: names.take(identifier(p.Name, "param")), orig: p.Name, in: p.In,
			schema: s, ref: ref, typ: typ, simple: true,
			required: p.Required || p.In == "path", desc: brief(p.Description, 300),
			sensitive: credential(p.Name, p.In, s),
		}
		if pr.desc == "" && s != nil {
			pr.desc = brief(s.Description, 300)
		}
		pr.example, pr.hasEx = paramExample(p, s)
		if p.In != "query" && strings.HasPrefix(typ, "list(") {
			pr.sep = "," // the simple style: a header's only one, a path's default
		}
		if p.In == "query" && strings.HasPrefix(typ, "list(") {
			switch {
			case p.Style == "pipeDelimited":
				pr.sep = "|"
			case p.Style == "spaceDelimited":
				pr.sep = " "
			case p.Explode != nil && !*p.Explode:
				pr.sep = ","
			}
		}
		params = append(params, pr)
	}
	return params, notes, ""
}

// paramExample is the value a parameter's example gives, if any: its
// own example, its first named example, or its schema's.
func paramExample(p *Parameter, s *Schema) (any, bool) {
	if p.Example != nil {
		return p.Example, true
	}
	for _, k := range slices.Sorted(maps.Keys(p.Examples)) {
		if ex := p.Examples[k]; ex != nil {
			return ex, true
		}
	}
	return schemaExample(s)
}

// schemaExample is a schema's example (3.0's example or 3.1's first of
// examples), or its default.
func schemaExample(s *Schema) (any, bool) {
	switch {
	case s == nil:
		return nil, false
	case s.Example != nil:
		return s.Example, true
	case len(s.Examples) > 0 && s.Examples[0] != nil:
		return s.Examples[0], true
	case s.Default != nil:
		return s.Default, true
	}
	return nil, false
}

// writeParam writes a param block.
func writeParam(w *writer, p *param) {
	w.open("param %s", quote(p.name))
	w.attr("type", p.typ)
	if p.desc != "" {
		w.attr("description", quote(p.desc))
	}
	if p.sensitive {
		w.attr("sensitive", "true")
	}
	cons := constraints(p.schema, p.typ)
	hasDefault := false
	for _, kv := range cons {
		if kv.k == "default" {
			hasDefault = true
			if p.required {
				// A required parameter with a default is one the
				// caller may leave out, as OpenAPI means it.
				continue
			}
		}
		w.attr(kv.k, value(kv.v, w.depth))
	}
	if !p.required && !hasDefault {
		w.attr("required", "false")
	}
	w.close()
}

// undefinedPathParam is the first {name} of path that no path
// parameter of params defines, "" when there is none.
func undefinedPathParam(path string, params []*param) string {
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			return ""
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			return ""
		}
		name := path[i+1 : i+j]
		if !slices.ContainsFunc(params, func(p *param) bool { return p.in == "path" && p.orig == name }) {
			return name
		}
		path = path[i+j+1:]
	}
}

// pathTemplate is the path with each {name} replaced by its param, as a
// template's text (without quotes).
func (c *converter) pathTemplate(path string, params []*param) string {
	var b strings.Builder
	for path != "" {
		i := strings.IndexByte(path, '{')
		j := strings.IndexByte(path[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(templateText(path))
			break
		}
		j += i
		b.WriteString(templateText(path[:i]))
		name := path[i+1 : j]
		found := false
		for _, p := range params {
			if p.in == "path" && p.orig == name && p.sep != "" {
				fmt.Fprintf(&b, "${join(%s, param.%s)}", quote(p.sep), p.name)
				found = true
				break
			}
			if p.in == "path" && p.orig == name {
				fmt.Fprintf(&b, "${param.%s}", p.name)
				found = true
				break
			}
		}
		if !found {
			b.WriteString(templateText(path[i : j+1]))
		}
		path = path[j+1:]
	}
	return b.String()
}
