package http

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"golang.org/x/net/http/httpguts"
)

// kvArg is the headers or query argument: either an object constructor
// with constant keys, whose values are compiled one by one, or any other
// expression yielding a map, evaluated whole.
type kvArg struct {
	header bool // headers (one value each) rather than query (lists allowed)
	pairs  []kvPair
	whole  *value
}

// kvPair is one entry of an object constructor.
type kvPair struct {
	name  string
	value *value
}

// kvEntry is an evaluated entry.
type kvEntry struct {
	name   string
	values []string
}

// compileKV compiles a headers (header set) or query argument.
func (c *compiler) compileKV(a *hcl.Attribute, header bool) *kvArg {
	kv := &kvArg{header: header}
	what := "query parameter"
	if header {
		what = "header"
	}
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		// Not an object constructor: a map-valued expression.
		if header && refsParam(a.Expr) {
			// The names would be the model's: Host (another virtual host
			// behind an allowed one), Cookie, X-Forwarded-For...
			c.errorf(a.Expr.Range(), "Header names must be constant",
				"These headers are computed from parameters, so the model calling the tool would choose the header names (Host, Cookie, X-Forwarded-For, ...). "+
					"Write headers as an object with literal names, and use param in the values, such as headers = { X-Filter = param.filter }.")
			return kv
		}
		val, ok := c.eval(a.Expr)
		if !ok {
			return kv
		}
		ty := val.Type()
		if !(ty == cty.DynamicPseudoType || ty.IsObjectType() || ty.IsMapType()) {
			c.errorf(a.Expr.Range(), "Incorrect attribute value type",
				"The %s argument must be a map of %s values, such as { Accept = \"application/json\" }, not %s.", a.Name, what, attr.TypeName(ty))
			return kv
		}
		kv.whole = newValue(a.Expr, val, a.Name)
		if kv.whole.known {
			if _, err := kv.evalWhole(kv.whole.val); err != nil {
				c.errorf(a.Expr.Range(), "Invalid "+a.Name, "%s Correct the %s argument.", sentence(err.Error()), a.Name)
			}
		}
		return kv
	}
	seen := map[string]hcl.Range{}
	for _, p := range pairs {
		if refsParam(p.Key) {
			detail := fmt.Sprintf("In an object written out, a %s name is fixed when the config loads, so it cannot refer to param. Write the name literally, and use param in the value.", what)
			if !header {
				detail += " To let the caller choose the names, give a map parameter whole, as in query = param.filters: the caller then picks every name, and may repeat one the tool sets."
			}
			c.errorf(p.Key.Range(), "Name must be constant", "%s", detail)
			continue
		}
		kval, ok := c.eval(p.Key)
		if !ok {
			continue
		}
		kval, _ = kval.UnmarkDeep()
		ks, err := convert.Convert(kval, cty.String)
		if err != nil || !ks.IsWhollyKnown() || ks.IsNull() {
			c.errorf(p.Key.Range(), "Invalid "+what+" name",
				"A %s name must be a string known when the config loads. Write the name literally, quoted if it contains a dash: \"X-Api-Key\" = ...", what)
			continue
		}
		name := ks.AsString()
		key := name
		if header {
			if !httpguts.ValidHeaderFieldName(name) {
				c.errorf(p.Key.Range(), "Invalid header name",
					"%q is not a valid header name: header names are letters, digits and !#$%%&'*+-.^_`|~ only. Correct the name.", name)
				continue
			}
			key = http.CanonicalHeaderKey(name)
		}
		if prev, dup := seen[key]; dup {
			c.errorf(p.Key.Range(), "Duplicate "+what,
				"The %s %q is already set at %s:%d:%d. Remove one of them.", what, name, prev.Filename, prev.Start.Line, prev.Start.Column)
			continue
		}
		seen[key] = p.Key.Range()

		label := fmt.Sprintf("%s %q", what, name)
		val, ok := c.eval(p.Value)
		if !ok {
			continue
		}
		if err := checkScalarType(val.Type(), !header); err != nil {
			c.errorf(p.Value.Range(), "Invalid "+what+" value",
				"The %s %s. Convert it, for example with jsonencode(...) for structured data.", label, err)
			continue
		}
		v := newValue(p.Value, val, label)
		if v.known && header {
			values, err := valueStrings(v.val, false)
			if err == nil {
				for _, s := range values {
					err = checkHeaderValue(name, s)
				}
			}
			if err != nil {
				c.errorf(p.Value.Range(), "Invalid header value", "%s Correct the value.", sentence(err.Error()))
				continue
			}
		}
		kv.pairs = append(kv.pairs, kvPair{name: name, value: v})
	}
	return kv
}

// eval evaluates the entries for a call. Null values are left out.
func (kv *kvArg) eval(ev *hcl.EvalContext) ([]kvEntry, error) {
	if kv.whole != nil {
		val, err := kv.whole.eval(ev)
		if err != nil {
			return nil, err
		}
		return kv.evalWhole(val)
	}
	entries := make([]kvEntry, 0, len(kv.pairs))
	for _, p := range kv.pairs {
		val, err := p.value.eval(ev)
		if err != nil {
			return nil, err
		}
		values, err := valueStrings(val, !kv.header)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p.value.what, err)
		}
		if len(values) > 0 {
			entries = append(entries, kvEntry{name: p.name, values: values})
		}
	}
	return entries, nil
}

// evalWhole turns a map value into entries, sorted by name.
func (kv *kvArg) evalWhole(val cty.Value) ([]kvEntry, error) {
	what := "query"
	if kv.header {
		what = "headers"
	}
	val, _ = val.UnmarkDeep()
	if val.IsNull() {
		return nil, nil
	}
	ty := val.Type()
	if !ty.IsObjectType() && !ty.IsMapType() {
		return nil, fmt.Errorf("%s: must be a map, not %s", what, attr.TypeName(ty))
	}
	var entries []kvEntry
	for it := val.ElementIterator(); it.Next(); {
		k, v := it.Element()
		name := k.AsString()
		values, err := valueStrings(v, !kv.header)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %v", what, name, err)
		}
		if kv.header {
			if err := checkHeaderName(name); err != nil {
				return nil, err
			}
			for _, s := range values {
				if err := checkHeaderValue(name, s); err != nil {
					return nil, err
				}
			}
		}
		if len(values) > 0 {
			entries = append(entries, kvEntry{name: name, values: values})
		}
	}
	return entries, nil
}

// checkHeaderName refuses a malformed header name.
func checkHeaderName(name string) error {
	if !httpguts.ValidHeaderFieldName(name) {
		return fmt.Errorf("%q is not a valid header name", name)
	}
	return nil
}

// checkHeaderValue refuses a header value that could split the request.
// The message names the header, never the value.
func checkHeaderValue(name, value string) error {
	if strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("header %q has a value with a line break (CR or LF), which was refused; header values must be a single line", name)
	}
	if !httpguts.ValidHeaderFieldValue(value) {
		return fmt.Errorf("header %q has a value with control characters, which was refused", name)
	}
	return nil
}

// sentence capitalizes msg and ends it with a period.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}
