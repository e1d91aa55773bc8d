package http

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/tidwall/gjson"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// selectSchema is the schema of the select block.
var selectSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "param", Required: true}, {Name: "choices"}, {Name: "gjson"},
}}

// Limits of the select block.
const (
	maxChoices    = 256
	maxGJSONParam = 512 // bytes of a path the model writes
)

// projection is a tool's select block: a parameter with which the model
// picks the part of a JSON answer it wants, so that the response is cut
// down before it reaches the model.
type projection struct {
	param   string   // the parameter
	choices []string // the fields it may pick; nil for a gjson path
	gjson   bool     // the parameter is a gjson path
}

// compileSelect reads a select block.
func (c *compiler) compileSelect(h *HTTP, b *hcl.Block) {
	content, diags := b.Body.Content(selectSchema)
	for _, d := range diags {
		if d.Summary == "Missing required argument" {
			d.Subject = b.DefRange.Ptr()
			d.Detail += ` Add it to the select block: the name of the parameter the model picks with, for example param = "fields".`
		}
	}
	c.diags = append(c.diags, diags...)
	at := content.Attributes
	p := &projection{}
	if a := at["param"]; a != nil {
		if v, ok := c.constant(a, cty.String, `a parameter name such as "fields"`); ok {
			p.param = v.AsString()
			c.checkSelectParam(a, p.param)
		}
	}
	if a := at["gjson"]; a != nil {
		ats := adapters.NewAttrs(c.cc)
		c.diags = append(c.diags, ats.Boolean(a, &p.gjson, "Write gjson = true to let the model write a gjson path.")...)
	}
	if pa := at["param"]; p.gjson && pa != nil {
		c.checkPathParam(pa, p.param)
	}
	if a := at["choices"]; a != nil {
		if v, ok := c.constant(a, cty.List(cty.String), `a list of field names such as ["name", "price"]`); ok {
			for _, e := range v.AsValueSlice() {
				if !e.IsNull() && !slices.Contains(p.choices, e.AsString()) {
					p.choices = append(p.choices, e.AsString())
				}
			}
			switch {
			case p.gjson:
				c.errorf(a.Expr.Range(), "choices with gjson", "A select block takes either choices (the fields the model may pick) or gjson = true (a path the model writes), not both. Remove one.")
			case len(p.choices) == 0 || len(p.choices) > maxChoices:
				c.errorf(a.Expr.Range(), "Invalid choices", "The choices must list from 1 to %d field names; this lists %d.", maxChoices, len(p.choices))
			}
		}
	} else if !p.gjson {
		c.errorf(b.DefRange, "select without choices", `A select block needs choices (the fields the model may pick, as choices = ["name", "price"]) or gjson = true (a gjson path the model writes). Add one.`)
	}
	if slices.Contains([]string{"HEAD", "OPTIONS"}, h.method) {
		c.errorf(b.DefRange, "select on a "+h.method+" request", "A %s answer has no body to select from. Remove the select block.", h.method)
	}
	h.shape = p
}

// checkSelectParam checks that the parameter a select block names is
// declared, and of a type it can read: a string, or a list of strings
// for choices.
func (c *compiler) checkSelectParam(a *hcl.Attribute, name string) {
	if c.params != nil && !c.params[name] {
		c.errorf(a.Expr.Range(), "Undeclared select parameter",
			"The select block names the parameter %q, and the tool declares none of that name. Declare it, for example param %q { type = list(string)  description = \"the fields to return\"  required = false }, and list its values in the description or an enum.", name, name)
		return
	}
	if v, ok := c.ev.Variables[paramRoot]; ok && v.Type().IsObjectType() && v.Type().HasAttribute(name) {
		ty := v.Type().AttributeType(name)
		if !ty.Equals(cty.String) && !ty.Equals(cty.List(cty.String)) && !ty.Equals(cty.Set(cty.String)) && ty != cty.DynamicPseudoType {
			c.errorf(a.Expr.Range(), "Invalid select parameter type",
				"The parameter %q is %s; a select parameter must be a string or a list of strings. Change its type.", name, attr.TypeName(ty))
		}
	}
}

// checkPathParam checks that the parameter of a select block with gjson
// = true is a string: a list's value is no path, and a call would get
// the whole answer without a word.
func (c *compiler) checkPathParam(a *hcl.Attribute, name string) {
	if v, ok := c.ev.Variables[paramRoot]; ok && v.Type().IsObjectType() && v.Type().HasAttribute(name) {
		if ty := v.Type().AttributeType(name); ty.IsListType() || ty.IsSetType() {
			c.errorf(a.Expr.Range(), "Invalid select parameter type",
				"The parameter %q is %s; with gjson = true, the select parameter is one path, a string. Change its type to string, or use choices.", name, attr.TypeName(ty))
		}
	}
}

// picked returns what the model picked with the select parameter: the
// fields, or a gjson path; none when it left the parameter out. A field
// not among the choices, or a path that is too long, is an error.
func (p *projection) picked(ev *hcl.EvalContext) (fields []string, path string, none bool, err error) {
	v := cty.NullVal(cty.String)
	if ev != nil {
		if pv, ok := ev.Variables[paramRoot]; ok && pv.Type().IsObjectType() && pv.Type().HasAttribute(p.param) {
			v = adapters.Unmark(pv.GetAttr(p.param))
		}
	}
	if v.IsNull() || !v.IsKnown() {
		return nil, "", true, nil
	}
	if p.gjson {
		s, err := convert.Convert(v, cty.String)
		if err != nil || s.IsNull() || s.AsString() == "" {
			return nil, "", true, nil
		}
		if len(s.AsString()) > maxGJSONParam {
			return nil, "", false, fmt.Errorf("the argument %q is longer than %d bytes; write a shorter path", p.param, maxGJSONParam)
		}
		if m := refusedModifier(s.AsString()); m != "" {
			return nil, "", false, fmt.Errorf("the argument %q uses the modifier @%s, which this tool does not take (it can make an answer many times larger than the response); leave it out, or escape the @ as \\@ if it is part of a key", p.param, m)
		}
		return nil, s.AsString(), false, nil
	}
	var vals []cty.Value
	if v.Type().IsPrimitiveType() {
		vals = []cty.Value{v}
	} else if v.CanIterateElements() {
		vals = v.AsValueSlice()
	}
	for _, e := range vals {
		s, err := convert.Convert(e, cty.String)
		if err != nil || s.IsNull() {
			continue
		}
		if !slices.Contains(p.choices, s.AsString()) {
			return nil, "", false, fmt.Errorf("the argument %q may name %s; %q is not one of them", p.param, strings.Join(quoteAll(p.choices), ", "), s.AsString())
		}
		fields = append(fields, s.AsString())
	}
	return fields, "", len(fields) == 0, nil
}

// refusedModifiers are the gjson modifiers a select path may not use:
// each can make an answer far larger than the response it reads (@pretty
// repeats its indent on every line, @group repeats every key for each
// element, @dig copies nested matches once per level, @tostr escapes its
// input again at each use, which doubles it).
var refusedModifiers = []string{"pretty", "group", "dig", "tostr"}

// refusedModifier returns the first of refusedModifiers that path uses,
// or "". It is cautious: an unescaped @ followed by such a name anywhere
// counts, even inside a query's string.
func refusedModifier(path string) string {
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '\\':
			i++
		case '@':
			j := i + 1
			for j < len(path) && (path[j] == '_' || path[j] >= 'a' && path[j] <= 'z' || path[j] >= 'A' && path[j] <= 'Z' || path[j] >= '0' && path[j] <= '9') {
				j++
			}
			if slices.Contains(refusedModifiers, path[i+1:j]) {
				return path[i+1 : j]
			}
		}
	}
	return ""
}

// pathCopies returns how many times, at most, a gjson path may copy the
// response into its answer, or more than limit. Each multipath ({a,b} or
// [a,b]) copies what each of its parts matches, and a multipath after a
// pipe copies the answer of the one before: {x:[a,a]}|{x:[x,x]}|...
// doubles at each step. So the count is the product, over the path's
// steps (split at every | and . whatever their place), of the number of
// parts of the step (one plus its commas); a step whose parts are all
// plain keys, each a different one ({id,price}), counts once, as those
// pick disjoint parts of one object. It reads no brackets or strings,
// whose reading a crafted path could make differ from gjson's: splitting
// at a separator that is none, or counting a comma that is none, only
// counts more, and a part with anything but a key's characters is not
// plain.
func pathCopies(path string, limit int64) int64 {
	copies := int64(1)
	var parts []string
	start := 0
	step := func(end int) {
		parts = append(parts, path[start:end])
		if n := int64(len(parts)); n > 1 && !distinctKeys(parts) && copies <= limit {
			copies *= n
		}
		parts = parts[:0]
	}
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '\\':
			i++
		case ',':
			parts = append(parts, path[start:i])
			start = i + 1
		case '|', '.':
			step(i)
			start = i + 1
		}
	}
	step(len(path))
	return copies
}

// distinctKeys reports whether each of parts, the comma-separated parts
// of one step of a path, is a plain key (letters, digits, _ and -, the
// step's opening { or [ and closing } or ] aside) and no two are the same.
func distinctKeys(parts []string) bool {
	seen := make(map[string]bool, len(parts))
	for i, p := range parts {
		if i == 0 {
			p = strings.TrimLeft(p, "{[")
		}
		if i == len(parts)-1 {
			p = strings.TrimRight(p, "}]")
		}
		if p == "" || seen[p] || strings.IndexFunc(p, func(r rune) bool {
			return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) >= 0 {
			return false
		}
		seen[p] = true
	}
	return true
}

// copiesText says copies, or "too many" past limit.
func copiesText(copies, limit int64) string {
	if copies > limit {
		return "too many"
	}
	return fmt.Sprint(copies)
}

// quoteAll quotes each of names.
func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// apply cuts a JSON output down to what the model picked: the picked
// fields of the object, or of each object of the array, it holds; or
// what a gjson path finds in it. Output that is not JSON stays as it
// is: the model sees all of it, as without a select block. An answer
// is at most limit bytes (max_response), and a gjson path whose parts
// could copy the response past it is refused before it is evaluated.
func (p *projection) apply(out *adapters.Output, fields []string, path string, limit int64) (*adapters.Output, error) {
	if out.Binary {
		return out, nil
	}
	if valid, _ := out.JSON(); !valid {
		return out, nil
	}
	body := adapters.TrimBOM(out.Body)
	var shaped []byte
	if p.gjson {
		if copies := pathCopies(path, limit); copies > 1 && copies > limit/max(int64(len(body)), 1) {
			return nil, fmt.Errorf("the path %q (argument %q) may copy the %d-byte response %s times (the product of the parts of its multipaths, step by step), more than the answer may hold (%d bytes, max_response); write a path with fewer parts", path, p.param, len(body), copiesText(copies, limit), limit)
		}
		res := gjson.GetBytes(body, path)
		if !res.Exists() {
			return nil, fmt.Errorf("the path %q (argument %q) matches nothing in the response; leave the argument out to see the whole response, or write another path", path, p.param)
		}
		shaped = []byte(res.Raw)
	} else {
		shaped = projectFields(body, fields)
	}
	if int64(len(shaped)) > limit {
		return nil, fmt.Errorf("the part of the response the argument %q picks is larger than %d bytes (max_response); pick less", p.param, limit)
	}
	return &adapters.Output{Body: shaped, MIMEType: "application/json", Secrets: out.Secrets}, nil
}

// projectFields keeps only the named fields of the JSON object in body,
// or of each object in the array in body, in the body's order. Anything
// else is left as it is.
func projectFields(body []byte, fields []string) []byte {
	root := gjson.ParseBytes(body)
	var buf bytes.Buffer
	buf.Grow(len(body) / 8)
	switch {
	case root.IsObject():
		writeProjected(&buf, root, fields)
	case root.IsArray():
		buf.WriteByte('[')
		first := true
		root.ForEach(func(_, item gjson.Result) bool {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			if item.IsObject() {
				writeProjected(&buf, item, fields)
			} else {
				buf.WriteString(item.Raw)
			}
			return true
		})
		buf.WriteByte(']')
	default:
		return body
	}
	return buf.Bytes()
}

// writeProjected writes obj with only the named fields.
func writeProjected(buf *bytes.Buffer, obj gjson.Result, fields []string) {
	buf.WriteByte('{')
	first := true
	obj.ForEach(func(key, val gjson.Result) bool {
		if slices.Contains(fields, key.String()) {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			buf.WriteString(key.Raw)
			buf.WriteByte(':')
			buf.WriteString(val.Raw)
		}
		return true
	})
	buf.WriteByte('}')
}

// ParamChoices returns the select block's choices (see
// adapters.ParamChoicer): the input schema lists them for the model.
func (h *HTTP) ParamChoices() map[string][]string {
	if h.shape == nil || len(h.shape.choices) == 0 {
		return nil
	}
	return map[string][]string{h.shape.param: h.shape.choices}
}

// PathParam returns the select block's parameter when it takes a gjson
// path (see adapters.PathPicker).
func (h *HTTP) PathParam() string {
	if h.shape == nil || !h.shape.gjson {
		return ""
	}
	return h.shape.param
}

var _ adapters.ParamChoicer = (*HTTP)(nil)
var _ adapters.PathPicker = (*HTTP)(nil)
