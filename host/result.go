package host

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/tidwall/gjson"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	thcl "github.com/toolhost/toolhost/hcl"
)

// MapResult applies a result block to a backend's JSON output: each field's
// gjson path is evaluated (it may interpolate params), the value found is
// converted to the field's declared type, and the fields are assembled into
// one JSON object that matches the tool's outputSchema.
func MapResult(r *thcl.Result, body []byte, eval *hcl.EvalContext) (json.RawMessage, error) {
	if !gjson.ValidBytes(body) {
		return nil, fmt.Errorf("the output is not JSON, so the result fields cannot be read from it; it begins: %s", preview(body))
	}
	out := make(map[string]json.RawMessage, len(r.Fields))
	for _, f := range r.Fields {
		pv, diags := f.Path.Value(eval)
		if diags.HasErrors() {
			return nil, fmt.Errorf("result field %q: the path could not be evaluated: %s", f.Name, diags.Error())
		}
		ps, err := convert.Convert(pv, cty.String)
		if err != nil || ps.IsNull() {
			return nil, fmt.Errorf("result field %q: the path is not a string", f.Name)
		}
		path := ps.AsString()
		res := gjson.GetBytes(body, path)
		if !res.Exists() || res.Type == gjson.Null {
			if f.Optional {
				continue
			}
			found := "nothing"
			if res.Exists() {
				found = "null"
			}
			return nil, fmt.Errorf("result field %q: the path %q matched %s in the output; mark the field optional = true if it may be absent", f.Name, path, found)
		}
		raw, err := ConvertJSON(f.Type, []byte(res.Raw))
		if err != nil {
			return nil, fmt.Errorf("result field %q: %s", f.Name, err)
		}
		out[f.Name] = raw
	}
	return json.Marshal(out)
}

// ConvertJSON converts a JSON value to the declared type (numbers in strings
// become numbers, extra object attributes are dropped, and so on) and
// returns it as JSON. A value that cannot be converted is an error that says
// what was expected.
func ConvertJSON(t *thcl.Type, raw []byte) (json.RawMessage, error) {
	if t.Kind == thcl.KindAny {
		return json.RawMessage(raw), nil
	}
	implied, err := ctyjson.ImpliedType(raw)
	if err != nil {
		return nil, fmt.Errorf("the value is not valid JSON: %s", err)
	}
	v, err := ctyjson.Unmarshal(raw, implied)
	if err != nil {
		return nil, fmt.Errorf("the value is not valid JSON: %s", err)
	}
	cv, err := convert.Convert(v, t.Cty())
	if err != nil {
		return nil, fmt.Errorf("expected %s, got %s: %s", t, preview(raw), convertMessage(err))
	}
	if cv.IsNull() {
		return json.RawMessage("null"), nil
	}
	if msg := checkIntegers(t, cv, ""); msg != "" {
		return nil, fmt.Errorf("%s", msg)
	}
	if path := nullPath(t, cv, ""); path != "" {
		return nil, fmt.Errorf("%s is null, but the declared type %s does not allow null; declare it optional(...) in an object type", path, t)
	}
	return thcl.EncodeJSON(t, cv), nil
}

// checkIntegers reports the first value declared integer that is not whole.
func checkIntegers(t *thcl.Type, v cty.Value, path string) string {
	if v.IsNull() || !v.IsKnown() {
		return ""
	}
	switch t.Kind {
	case thcl.KindInteger:
		if !thcl.IntegerValue(v) {
			where := ""
			if path != "" {
				where = " at " + path
			}
			return fmt.Sprintf("expected an integer%s, got %s", where, v.AsBigFloat().Text('g', -1))
		}
	case thcl.KindList, thcl.KindSet:
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			if msg := checkIntegers(t.Elem, ev, fmt.Sprintf("%s[%d]", path, i)); msg != "" {
				return msg
			}
		}
	case thcl.KindMap:
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			if msg := checkIntegers(t.Elem, ev, joinPath(path, k.AsString())); msg != "" {
				return msg
			}
		}
	case thcl.KindObject:
		for _, n := range t.AttrOrder {
			if msg := checkIntegers(t.Attrs[n], v.GetAttr(n), joinPath(path, n)); msg != "" {
				return msg
			}
		}
	case thcl.KindTuple:
		for i, et := range t.Elems {
			if msg := checkIntegers(et, v.Index(cty.NumberIntVal(int64(i))), fmt.Sprintf("%s[%d]", path, i)); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// nullPath returns the path of the first null the declared type does not
// allow (only optional object attributes and "any" may be null), or "".
func nullPath(t *thcl.Type, v cty.Value, path string) string {
	if t.Kind == thcl.KindAny {
		return ""
	}
	if v.IsNull() {
		if path == "" {
			return "the value"
		}
		return path
	}
	switch t.Kind {
	case thcl.KindList, thcl.KindSet:
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			if p := nullPath(t.Elem, ev, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case thcl.KindMap:
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			if p := nullPath(t.Elem, ev, joinPath(path, k.AsString())); p != "" {
				return p
			}
		}
	case thcl.KindObject:
		for _, n := range t.AttrOrder {
			av := v.GetAttr(n)
			if t.Optional[n] && av.IsNull() {
				continue
			}
			if p := nullPath(t.Attrs[n], av, joinPath(path, n)); p != "" {
				return p
			}
		}
	case thcl.KindTuple:
		for i, et := range t.Elems {
			if p := nullPath(et, v.Index(cty.NumberIntVal(int64(i))), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// convertMessage renders a cty conversion error with its path.
func convertMessage(err error) string {
	if pe, ok := err.(cty.PathError); ok && len(pe.Path) > 0 {
		var b strings.Builder
		for _, step := range pe.Path {
			switch s := step.(type) {
			case cty.GetAttrStep:
				b.WriteString("." + s.Name)
			case cty.IndexStep:
				if s.Key.Type() == cty.String {
					b.WriteString("." + s.Key.AsString())
				} else if s.Key.Type() == cty.Number {
					b.WriteString("[" + s.Key.AsBigFloat().Text('f', 0) + "]")
				}
			}
		}
		return strings.TrimPrefix(b.String(), ".") + ": " + pe.Error()
	}
	return err.Error()
}

// preview shows the start of a body in a message.
func preview(b []byte) string {
	const max = 120
	s := string(b)
	if len(s) > max {
		s = s[:max]
		for !utf8.ValidString(s) && len(s) > 0 {
			s = s[:len(s)-1]
		}
		s += "..."
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return fmt.Sprintf("%q", s)
}
