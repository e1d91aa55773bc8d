package hcl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// A param's header attribute mirrors its argument into an HTTP request
// header, for gateways that route on it without reading the body (MCP
// 2026-07-28, SEP-2243): the param's schema gets "x-mcp-header": NAME, a
// client sends the argument as the header Mcp-Param-NAME on every
// tools/call over streamable HTTP, and the server checks that the two
// agree. The rules on NAME and on the param are the SEP's (see
// checkHeaderName and headerKinds); a tool that breaks them is one that
// clients drop from tools/list, so they are config errors here.

// ParamHeaderPrefix starts the name of every header a param is mirrored
// into.
const ParamHeaderPrefix = "Mcp-Param-"

// HeaderKeyword is the JSON Schema keyword that marks a property as
// mirrored into a header.
const HeaderKeyword = "x-mcp-header"

// ParamHeader is one argument a tool mirrors into a request header.
type ParamHeader struct {
	// Path is the chain of property names from the top of the input
	// schema to the argument: one name for a param block.
	Path []string
	// Name is the x-mcp-header value: the header is Mcp-Param-Name.
	Name string
}

// Header is the full name of the header, as in "Mcp-Param-Region".
func (h ParamHeader) Header() string { return ParamHeaderPrefix + h.Name }

// Arg names the argument for messages, as in "region" or "target.region".
func (h ParamHeader) Arg() string { return strings.Join(h.Path, ".") }

// maxHeaderPathDepth is how deep in nested properties ParamHeaders looks
// for x-mcp-header: the schemas are the config's, whose nesting the JSON
// decoder already bounds; this keeps the walk short all the same.
const maxHeaderPathDepth = 32

// ParamHeaders returns the arguments the input schema (as JSON) mirrors
// into headers: every property reachable from the top through properties
// alone that has a string x-mcp-header, in no particular order. It returns
// nil for a schema without the keyword, without decoding it.
func ParamHeaders(schema json.RawMessage) []ParamHeader {
	if !bytes.Contains(schema, []byte(`"`+HeaderKeyword+`"`)) {
		return nil
	}
	var doc any
	if json.Unmarshal(schema, &doc) != nil {
		return nil
	}
	var out []ParamHeader
	var walk func(s map[string]any, path []string)
	walk = func(s map[string]any, path []string) {
		props, _ := s["properties"].(map[string]any)
		for _, name := range sortedKeys(props) {
			sub, ok := props[name].(map[string]any)
			if !ok {
				continue
			}
			p := append(path[:len(path):len(path)], name)
			if h, ok := sub[HeaderKeyword].(string); ok {
				out = append(out, ParamHeader{Path: p, Name: h})
			}
			if len(p) < maxHeaderPathDepth {
				walk(sub, p)
			}
		}
	}
	if top, ok := doc.(map[string]any); ok {
		walk(top, nil)
	}
	return out
}

// headerKinds are the types whose values a header can carry: the SEP's
// string, integer and boolean. A number is left out by the SEP (a float
// has no one text form that both ends agree on), and so are lists, maps
// and objects, which have no header form at all.
var headerKinds = map[TypeKind]bool{KindString: true, KindInteger: true, KindBool: true}

// decodeHeader decodes a param's header attribute into p.Header. kind is
// the block's type: an ask block's field has no argument to mirror.
func (p *Param) decodeHeader(attrs hcl.Attributes, ctx *hcl.EvalContext, kind string) hcl.Diagnostics {
	a, ok := attrs["header"]
	if !ok {
		return nil
	}
	var name string
	diags := stringAttr(attrs, "header", ctx, &name)
	if diags.HasErrors() {
		return diags
	}
	bad := func(summary, detail string) hcl.Diagnostics {
		return append(diags, rangeDiag(a, summary, detail))
	}
	if kind != "param" {
		return bad("header in an ask field", "header mirrors a tool's argument into a request header; the answers of an ask form are not arguments and travel in no header. Remove header, or declare it on a param block of the tool.")
	}
	if msg := checkHeaderName(name); msg != "" {
		return bad("Invalid header", msg)
	}
	if !headerKinds[p.Type.Kind] {
		return bad("Parameter cannot be mirrored into a header",
			fmt.Sprintf("%q is of type %s, and a header carries only a string, integer or bool value (MCP's x-mcp-header rules: %s). %s",
				p.Name, p.Type, unmirrorableWhy(p.Type.Kind), "Remove header, or mirror another param: one that holds what gateways route on, such as a region or tenant name."))
	}
	if p.Sensitive {
		return bad("Sensitive parameter mirrored into a header",
			fmt.Sprintf("%q is sensitive, and header would send its value in the clear to every proxy and gateway on the way, whose access logs record headers. Remove header, or sensitive = true if the value is not a secret.", p.Name))
	}
	p.Header = name
	p.HeaderRange = a.Expr.Range()
	return diags
}

// unmirrorableWhy says why a param of kind k has no header form.
func unmirrorableWhy(k TypeKind) string {
	if k == KindNumber {
		return "a number has no one text both ends agree on, as 0.1 + 0.2 shows; declare it type = integer if it is a whole number, or string"
	}
	return "lists, sets, tuples, maps and objects have no header form"
}

// checkHeaderName checks an x-mcp-header value: the name after Mcp-Param-.
// It returns what is wrong, with the fix, or "".
func checkHeaderName(name string) string {
	if name == "" {
		return "header is the name a gateway sees the argument under, after Mcp-Param-, such as header = \"Region\" for Mcp-Param-Region; it cannot be empty."
	}
	if rest, ok := cutPrefixFold(name, ParamHeaderPrefix); ok && rest != "" {
		return fmt.Sprintf("header is the part after %s: header = %q is sent as %s%s. Write header = %q.", ParamHeaderPrefix, name, ParamHeaderPrefix, name, rest)
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return fmt.Sprintf("%q has %s, which a header name cannot hold: it takes letters, digits and !#$%%&'*+-.^_`|~ only (an HTTP token). Try header = %q.", name, showByte(name, i), headerToken(name))
		}
	}
	return ""
}

// cutPrefixFold is strings.CutPrefix, comparing ASCII case-insensitively.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// showByte names the character at s[i] for a message: "a space", "':'",
// or its code point.
func showByte(s string, i int) string {
	switch c := s[i]; {
	case c == ' ':
		return "a space"
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("the control character %U", rune(c))
	case c >= 0x80:
		r := []rune(s[i:])[0]
		return fmt.Sprintf("%q (%U), which is not ASCII", r, r)
	default:
		return fmt.Sprintf("%q", rune(c))
	}
}

// headerToken turns s into a valid header name for a hint: each run of
// characters a token cannot hold becomes one '-'.
func headerToken(s string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(s); i++ {
		if isTokenChar(s[i]) {
			b.WriteByte(s[i])
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if out == "" {
		return "Param"
	}
	return out
}

// isTokenChar reports whether c may appear in an HTTP token (RFC 9110
// section 5.6.2, tchar), the syntax of header names.
func isTokenChar(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// uniqueHeaders reports params of one tool mirrored into the same header:
// header names compare case-insensitively, as HTTP's do, so a client could
// send only one of them.
func uniqueHeaders(params []*Param) hcl.Diagnostics {
	var diags hcl.Diagnostics
	first := map[string]*Param{}
	for _, p := range params {
		if p.Header == "" {
			continue
		}
		key := strings.ToLower(p.Header)
		prev, dup := first[key]
		if !dup {
			first[key] = p
			continue
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Two params mirrored into one header",
			Detail: fmt.Sprintf("%q and %q (at %s) are both mirrored into %s%s (header names ignore case), and a request carries one value there. Give %q a header of its own, or remove its header.",
				p.Name, prev.Name, posString(prev.HeaderRange), ParamHeaderPrefix, prev.Header, p.Name),
			Subject: p.HeaderRange.Ptr(),
		})
	}
	return diags
}

// checkSchemaHeaders checks the x-mcp-header keywords of an input_schema
// (doc, decoded) by the rules param blocks follow: on a property reachable
// through properties alone, of type string, integer or boolean, a valid
// name, one property per name. at maps a JSON pointer to its place in the
// config.
func checkSchemaHeaders(doc any, at func([]string) *hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	first := map[string]string{}
	eachSubschema(doc, nil, func(s map[string]any, ptr []string) {
		v, ok := s[HeaderKeyword]
		if !ok {
			return
		}
		kw := append(ptr[:len(ptr):len(ptr)], HeaderKeyword)
		bad := func(detail string) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid x-mcp-header", Detail: fmt.Sprintf("At %s: %s", showPointer(kw), detail), Subject: at(kw)})
		}
		name, isStr := v.(string)
		switch {
		case !reachable(ptr):
			bad("x-mcp-header marks a property reachable from the top of the schema through properties alone; here it is under items, a composition, a condition or $defs, where no one argument value is found, and clients drop a tool that has it there. Move it to such a property, or remove it.")
		case !isStr:
			bad(fmt.Sprintf("x-mcp-header is the header name after %s, a string such as \"Region\", not %s.", ParamHeaderPrefix, shortJSON(v)))
		case checkHeaderName(name) != "":
			bad(strings.Replace(checkHeaderName(name), "header = ", "x-mcp-header = ", -1))
		case s["type"] != "string" && s["type"] != "integer" && s["type"] != "boolean":
			bad(fmt.Sprintf("the property's type is %s, and a header carries only a string, integer or boolean value: give the property one of those types (a single type, not a list), or remove x-mcp-header.", shortJSON(s["type"])))
		default:
			key := strings.ToLower(name)
			if prev, dup := first[key]; dup {
				bad(fmt.Sprintf("%s is already the header of %s (header names ignore case), and a request carries one value there. Give this property a header of its own.", ParamHeaderPrefix+name, showPointer(strings.Split(prev, "\x00"))))
				return
			}
			first[key] = strings.Join(ptr, "\x00")
		}
	})
	return diags
}

// reachable reports whether a JSON pointer into a schema is a chain of
// properties/NAME steps, as the SEP wants of a property with x-mcp-header.
func reachable(ptr []string) bool {
	if len(ptr) == 0 || len(ptr)%2 != 0 {
		return false
	}
	for i := 0; i < len(ptr); i += 2 {
		if ptr[i] != "properties" {
			return false
		}
	}
	return true
}
