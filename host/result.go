package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/tidwall/gjson"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/jsondepth"
)

// MapResult applies a result block to a backend's JSON output: each field's
// gjson path is evaluated (it may interpolate params), the value found is
// converted to the field's declared type, and the fields are assembled into
// one JSON object that matches the tool's outputSchema.
func MapResult(r *thcl.Result, body []byte, eval *hcl.EvalContext) (json.RawMessage, error) {
	return MapOutput(r, &adapters.Output{Body: body}, eval)
}

// MapOutput is MapResult for a backend's output, whose look at the body
// (is it JSON, too deep?) the content items then share.
func MapOutput(r *thcl.Result, o *adapters.Output, eval *hcl.EvalContext) (json.RawMessage, error) {
	body := adapters.TrimBOM(o.Body)
	valid, tooDeep := o.JSON()
	if tooDeep {
		return nil, errTooDeep("the result fields")
	}
	// JSON Lines (a value on each line, as many commands print) is read
	// with gjson's paths for it, which start with "..".
	lines := false
	if !valid {
		if len(bytes.TrimSpace(body)) == 0 {
			return nil, errors.New("the output is empty, so the result fields cannot be read from it; check that the backend answers with a JSON body (an http upstream may answer 204, or 200 with no body, on a request it does not understand)")
		}
		if !isJSONLines(body) {
			return nil, fmt.Errorf("the output is not JSON, so the result fields cannot be read from it; it begins: %s", preview(body, o))
		}
		lines = true
	}
	// The object is written in the order the fields are declared, as the
	// objects inside it are. Each value is compacted, which checks it too:
	// a value of type any is the upstream's as gjson found it, and some
	// gjson modifiers (@fromstr of a string that is not JSON) give text
	// that is not JSON, which the SDK could not send.
	out := make([]byte, 1, 512)
	out[0] = '{'
	for _, f := range r.Fields {
		path, err := fieldPath(f, eval)
		if err != nil {
			return nil, err
		}
		if lines && !strings.HasPrefix(path, "..") {
			return nil, fmt.Errorf("result field %q: %s", f.Name, notJSONLinesPath(path))
		}
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
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = appendFieldName(out, f.Name)
		if f.Type.Kind != thcl.KindAny {
			var ok bool
			if out, ok = appendFast(out, f.Type, []byte(res.Raw)); ok {
				continue // compact JSON already
			}
		}
		raw, err := convertJSON(f.Type, []byte(res.Raw), o)
		if err != nil {
			return nil, fmt.Errorf("result field %q: %s", f.Name, err)
		}
		buf := bytes.NewBuffer(out)
		if err := json.Compact(buf, raw); err != nil {
			return nil, fmt.Errorf("result field %q: the path %q gave a value that is not JSON (%s): %s", f.Name, path, err, rawPreview(raw, o))
		}
		out = buf.Bytes()
	}
	return append(out, '}'), nil
}

// appendFieldName appends name as an object's key, as json.Marshal
// writes it, and the colon.
func appendFieldName(out []byte, name string) []byte {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 }) {
		q, _ := json.Marshal(name) // replacement characters and escapes, as encoding/json writes them
		return append(append(out, q...), ':')
	}
	return append(appendJSONString(out, name), ':')
}

// fieldPath evaluates the path of the result field f.
func fieldPath(f *thcl.Field, eval *hcl.EvalContext) (string, error) {
	if path, ok := literalPath(f.Path); ok {
		return path, nil
	}
	pv, diags := gjsonPathExpr{f.Path}.Value(eval)
	if diags.HasErrors() {
		return "", fmt.Errorf("result field %q: the path could not be evaluated: %s", f.Name, diags.Error())
	}
	ps, err := convert.Convert(pv, cty.String)
	if err != nil || ps.IsNull() {
		return "", fmt.Errorf("result field %q: the path is not a string", f.Name)
	}
	return ps.AsString(), nil
}

// notJSONLinesPath says why a path that does not start with ".." cannot
// read JSON Lines output, and what to write.
func notJSONLinesPath(path string) string {
	return fmt.Sprintf("the output is JSON Lines (a JSON value on each line), and the path %q reads only its first line; write a path for JSON Lines, which starts with .. (..#.name is the name of every line, ..0 the first line, ..# the number of lines)", path)
}

// isJSONLines reports whether body is JSON Lines: two or more lines that
// are each a JSON value, blank lines aside (a single value is plain JSON).
func isJSONLines(body []byte) bool {
	n := 0
	for line := range bytes.Lines(body) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !gjson.ValidBytes(line) {
			return false
		}
		n++
	}
	return n >= 2
}

// errTooDeep is the error of output that nests deeper than toolhost reads
// JSON (jsondepth.Max): what names what cannot be read from it.
func errTooDeep(what string) error {
	return fmt.Errorf("the output nests arrays and objects more than %d levels deep, deeper than toolhost reads JSON, so %s cannot be read from it; check what the upstream sends, or narrow the request", jsondepth.Max, what)
}

// ConvertJSON converts a JSON value to the declared type (numbers in strings
// become numbers, extra object attributes are dropped, and so on) and
// returns it as JSON. A value that cannot be converted is an error that says
// what was expected.
func ConvertJSON(t *thcl.Type, raw []byte) (json.RawMessage, error) {
	return convertJSON(t, raw, nil)
}

// convertJSON is ConvertJSON for a value from o, a backend's output, whose
// secrets an error's preview of the value masks (see rawPreview).
func convertJSON(t *thcl.Type, raw []byte, o *adapters.Output) (json.RawMessage, error) {
	if t.Kind == thcl.KindAny {
		return json.RawMessage(raw), nil
	}
	if out, ok := convertFast(t, raw); ok {
		return out, nil
	}
	return convertGeneral(t, raw, o)
}

// convertGeneral converts through cty: any conversion cty makes, and the
// errors.
func convertGeneral(t *thcl.Type, raw []byte, o *adapters.Output) (json.RawMessage, error) {
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
		return nil, fmt.Errorf("expected %s, got %s: %s", t, rawPreview(raw, o), convertMessage(err))
	}
	if cv.IsNull() {
		return json.RawMessage("null"), nil
	}
	if msg := checkIntegers(t, cv, ""); msg != "" {
		return nil, fmt.Errorf("%s", msg)
	}
	if path, elem := nullPath(t, cv, ""); path != "" {
		if elem {
			return nil, fmt.Errorf("%s is null, but the declared type %s does not allow null: an element of a list, set, map or tuple cannot be null; declare the element type any to pass nulls on, or narrow the path to leave them out", path, t)
		}
		return nil, fmt.Errorf("%s is null, but the declared type %s does not allow null; declare it optional(...) in an object type", path, t)
	}
	return thcl.EncodeJSON(t, cv), nil
}

// UnescapeHTML returns JSON with &, < and > written as themselves in its
// strings, not as the \u0026, \u003c and \u003e that encoding/json writes
// for HTML's sake: the same JSON for a parser, but a URL's query reads
// a=1&b=2 for a model or a person reading it as text. b must be valid
// JSON; it is returned as it is when it holds no such escape.
func UnescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(b):
			if i+5 < len(b) && b[i+1] == 'u' && b[i+2] == '0' && b[i+3] == '0' {
				switch string(b[i+4 : i+6]) {
				case "26":
					out = append(out, '&')
					i += 5
					continue
				case "3c":
					out = append(out, '<')
					i += 5
					continue
				case "3e":
					out = append(out, '>')
					i += 5
					continue
				}
			}
			out = append(out, c, b[i+1]) // an escape is two bytes at least
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// checkIntegers reports the first value declared integer that is not whole,
// or the first number beyond what a float64 holds, which parameters refuse
// too: clients read JSON numbers as float64, and one that cannot read 1e400
// cannot read the response it is in.
func checkIntegers(t *thcl.Type, v cty.Value, path string) string {
	if v.IsNull() || !v.IsKnown() {
		return ""
	}
	where := ""
	if path != "" {
		where = " at " + path
	}
	switch t.Kind {
	case thcl.KindNumber, thcl.KindInteger:
		if !inFloat64Range(v.AsBigFloat()) {
			return fmt.Sprintf("the number%s, %s, is beyond what a 64-bit number holds (0, or a magnitude from 4.9e-324 to 1.8e308), which clients cannot read; declare it string to pass it on as text", where, v.AsBigFloat().Text('g', 10))
		}
		if t.Kind == thcl.KindInteger && !thcl.IntegerValue(v) {
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
// allow (only optional object attributes and "any" may be null), or "";
// the second result reports that it is an element of a list, set, map or
// tuple, which optional(...) cannot make nullable.
func nullPath(t *thcl.Type, v cty.Value, path string) (string, bool) {
	if t.Kind == thcl.KindAny {
		return "", false
	}
	if v.IsNull() {
		if path == "" {
			return "the value", false
		}
		return path, false
	}
	switch t.Kind {
	case thcl.KindList, thcl.KindSet:
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			if p, elem := nullPath(t.Elem, ev, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p, elem || ev.IsNull()
			}
		}
	case thcl.KindMap:
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			if p, elem := nullPath(t.Elem, ev, joinPath(path, k.AsString())); p != "" {
				return p, elem || ev.IsNull()
			}
		}
	case thcl.KindObject:
		for _, n := range t.AttrOrder {
			av := v.GetAttr(n)
			if t.Optional[n] && av.IsNull() {
				continue
			}
			if p, elem := nullPath(t.Attrs[n], av, joinPath(path, n)); p != "" {
				return p, elem
			}
		}
	case thcl.KindTuple:
		for i, et := range t.Elems {
			ev := v.Index(cty.NumberIntVal(int64(i)))
			if p, elem := nullPath(et, ev, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p, elem || ev.IsNull()
			}
		}
	}
	return "", false
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

// rawPreview shows a JSON value as JSON, compacted on one line and
// shortened: a string keeps its one pair of quotes ("abc", not "\"abc\"").
// With o, the output the value is from, the secrets the call sent are
// masked before the value is shortened (see adapters.Output.RedactHead).
func rawPreview(raw []byte, o *adapters.Output) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return preview(raw, o)
	}
	s := strings.ToValidUTF8(buf.String(), "\uFFFD")
	if o == nil {
		return shorten(s)
	}
	if s, cut := o.RedactHead(s, shortenMax); cut {
		return s + "..."
	}
	return s
}

// preview shows the start of a body in a message, quoted. With o, the
// output the body is from, the secrets the call sent are masked before the
// body is cut, so that the cut never shows part of one.
func preview(b []byte, o *adapters.Output) string {
	const max = 120
	if o != nil {
		s, cut := o.RedactHead(strings.ToValidUTF8(string(b), "\uFFFD"), max)
		if cut {
			s += "..."
		}
		return fmt.Sprintf("%q", s)
	}
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
