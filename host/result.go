package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/tidwall/gjson"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"golang.org/x/text/unicode/norm"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
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
	var out bytes.Buffer
	out.WriteByte('{')
	for _, f := range r.Fields {
		pv, diags := gjsonPathExpr{f.Path}.Value(eval)
		if diags.HasErrors() {
			return nil, fmt.Errorf("result field %q: the path could not be evaluated: %s", f.Name, diags.Error())
		}
		ps, err := convert.Convert(pv, cty.String)
		if err != nil || ps.IsNull() {
			return nil, fmt.Errorf("result field %q: the path is not a string", f.Name)
		}
		path := ps.AsString()
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
		raw, err := convertJSON(f.Type, []byte(res.Raw), o)
		if err != nil {
			return nil, fmt.Errorf("result field %q: %s", f.Name, err)
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		name, _ := json.Marshal(f.Name)
		out.Write(name)
		out.WriteByte(':')
		if err := json.Compact(&out, raw); err != nil {
			return nil, fmt.Errorf("result field %q: the path %q gave a value that is not JSON (%s): %s", f.Name, path, err, rawPreview(raw, o))
		}
	}
	out.WriteByte('}')
	return out.Bytes(), nil
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
// JSON (adapters.MaxJSONDepth): what names what cannot be read from it.
func errTooDeep(what string) error {
	return fmt.Errorf("the output nests arrays and objects more than %d levels deep, deeper than toolhost reads JSON, so %s cannot be read from it; check what the upstream sends, or narrow the request", adapters.MaxJSONDepth, what)
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

// convertFast is ConvertJSON for a value that already has the declared
// shape, which is what a result mapping usually meets: strings where
// strings are declared, numbers where numbers are, objects with the
// declared attributes (extra ones are dropped, as conversion drops them).
// It writes what the general path (cty conversion and EncodeJSON) writes,
// byte for byte, at a tenth of the cost; it reports false for anything
// else — a conversion to make, a null, an escape in a string, a map, set or
// tuple type, invalid JSON — and the general path then does the work and
// words the errors. host/perf_test.go checks the two agree.
func convertFast(t *thcl.Type, raw []byte) (json.RawMessage, bool) {
	c := fastConv{src: raw}
	out, ok := c.value(make([]byte, 0, len(raw)), t)
	if !ok {
		return nil, false
	}
	c.space()
	if c.i != len(c.src) {
		return nil, false
	}
	return out, true
}

// fastConv reads JSON strictly (it does not trust its input).
type fastConv struct {
	src []byte
	i   int
}

func (c *fastConv) space() {
	for c.i < len(c.src) {
		switch c.src[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *fastConv) peek() byte {
	c.space()
	if c.i >= len(c.src) {
		return 0
	}
	return c.src[c.i]
}

// value converts the value at c.i to t and appends it.
func (c *fastConv) value(out []byte, t *thcl.Type) ([]byte, bool) {
	switch t.Kind {
	case thcl.KindString:
		if c.peek() != '"' {
			return nil, false
		}
		s, escaped, ok := c.str()
		if !ok {
			return nil, false
		}
		if escaped {
			q, err := json.Marshal(s) // control characters and all, as EncodeJSON
			return append(out, q...), err == nil
		}
		return appendJSONString(out, s), true
	case thcl.KindNumber, thcl.KindInteger:
		num, ok := c.number()
		if !ok {
			return nil, false
		}
		if n, ok := smallInt(num); ok {
			return strconv.AppendInt(out, n, 10), true
		}
		bf, _, err := big.ParseFloat(string(num), 10, 512, big.ToNearestEven)
		if err != nil {
			return nil, false
		}
		if !inFloat64Range(bf) || t.Kind == thcl.KindInteger && !bf.IsInt() {
			return nil, false // the general path says why
		}
		return thcl.AppendNumber(out, bf), true
	case thcl.KindBool:
		switch {
		case c.literal("true"):
			return append(out, "true"...), true
		case c.literal("false"):
			return append(out, "false"...), true
		}
		return nil, false
	case thcl.KindList:
		if c.peek() != '[' {
			return nil, false
		}
		c.i++
		out = append(out, '[')
		if c.peek() == ']' {
			c.i++
			return append(out, ']'), true
		}
		for n := 0; ; n++ {
			if n > 0 {
				out = append(out, ',')
			}
			var ok bool
			if out, ok = c.value(out, t.Elem); !ok {
				return nil, false
			}
			switch c.peek() {
			case ',':
				c.i++
			case ']':
				c.i++
				return append(out, ']'), true
			default:
				return nil, false
			}
		}
	case thcl.KindObject:
		return c.object(out, t)
	}
	return nil, false // map, set, tuple, any: the general path
}

// object converts a JSON object to an object type: declared attributes in
// declaration order, optional ones left out when absent or null, others
// dropped.
func (c *fastConv) object(out []byte, t *thcl.Type) ([]byte, bool) {
	if c.peek() != '{' {
		return nil, false
	}
	c.i++
	type span struct{ start, end int }
	var found map[string]span
	var seen []string
	if c.peek() == '}' {
		c.i++
	} else {
		for {
			if c.peek() != '"' {
				return nil, false
			}
			k, ok := c.plainString()
			if !ok || slices.Contains(seen, k) {
				return nil, false // an escaped key, or a duplicate, which cty refuses
			}
			seen = append(seen, k)
			if c.peek() != ':' {
				return nil, false
			}
			c.i++
			c.space()
			start := c.i
			if !c.skip() {
				return nil, false
			}
			if _, declared := t.Attrs[k]; declared {
				if found == nil {
					found = make(map[string]span, len(t.Attrs))
				}
				found[k] = span{start, c.i}
			}
			switch c.peek() {
			case ',':
				c.i++
				continue
			case '}':
				c.i++
			default:
				return nil, false
			}
			break
		}
	}
	end := c.i
	out = append(out, '{')
	first := true
	for _, name := range t.AttrOrder {
		sp, ok := found[name]
		if !ok || bytes.Equal(c.src[sp.start:sp.end], []byte("null")) {
			if t.Optional[name] {
				continue
			}
			return nil, false // missing or null: the general path says so
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = appendJSONString(out, name)
		out = append(out, ':')
		sub := fastConv{src: c.src[:sp.end], i: sp.start}
		if out, ok = sub.value(out, t.Attrs[name]); !ok {
			return nil, false
		}
	}
	c.i = end
	return append(out, '}'), true
}

// skip moves past one JSON value, checking it as strictly as the general
// path's decoder would, and refusing what cty would refuse (duplicate
// attributes) or what the fast path cannot compare (escaped keys).
func (c *fastConv) skip() bool {
	switch c.peek() {
	case '{':
		c.i++
		if c.peek() == '}' {
			c.i++
			return true
		}
		var seen []string
		for {
			if c.peek() != '"' {
				return false
			}
			k, ok := c.plainString()
			if !ok || slices.Contains(seen, k) {
				return false
			}
			seen = append(seen, k)
			if c.peek() != ':' {
				return false
			}
			c.i++
			if !c.skip() {
				return false
			}
			switch c.peek() {
			case ',':
				c.i++
			case '}':
				c.i++
				return true
			default:
				return false
			}
		}
	case '[':
		c.i++
		if c.peek() == ']' {
			c.i++
			return true
		}
		for {
			if !c.skip() {
				return false
			}
			switch c.peek() {
			case ',':
				c.i++
			case ']':
				c.i++
				return true
			default:
				return false
			}
		}
	case '"':
		return c.anyString()
	case 't':
		return c.literal("true")
	case 'f':
		return c.literal("false")
	case 'n':
		return c.literal("null")
	}
	_, ok := c.number()
	return ok
}

func (c *fastConv) literal(word string) bool {
	if c.peek() != word[0] || !bytes.HasPrefix(c.src[c.i:], []byte(word)) {
		return false
	}
	c.i += len(word)
	return true
}

// str reads a string that is valid UTF-8 in NFC (cty's normal form, which
// cty.StringVal would otherwise impose). escaped reports whether it had
// escapes, decoded as encoding/json decodes them.
func (c *fastConv) str() (s string, escaped, ok bool) {
	start := c.i + 1
	for j := start; j < len(c.src); j++ {
		switch b := c.src[j]; {
		case b == '"':
			raw := c.src[start:j]
			if escaped {
				if json.Unmarshal(c.src[c.i:j+1], &s) != nil {
					return "", false, false
				}
			} else {
				if !utf8.Valid(raw) {
					return "", false, false
				}
				s = string(raw)
			}
			if !norm.NFC.IsNormalString(s) {
				return "", false, false
			}
			c.i = j + 1
			return s, escaped, true
		case b == '\\':
			escaped = true
			j++ // the escaped character is not the end
		case b < 0x20:
			return "", false, false
		}
	}
	return "", false, false
}

// plainString is str for keys and values that are written back with
// appendJSONString.
func (c *fastConv) plainString() (string, bool) {
	s, _, ok := c.str()
	return s, ok
}

// anyString moves past a string in a value that is dropped: escapes are
// checked, not decoded.
func (c *fastConv) anyString() bool {
	for j := c.i + 1; j < len(c.src); j++ {
		switch b := c.src[j]; {
		case b == '"':
			c.i = j + 1
			return true
		case b < 0x20:
			return false
		case b == '\\':
			if j+1 >= len(c.src) {
				return false
			}
			switch c.src[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if j+5 >= len(c.src) {
					return false
				}
				for _, h := range c.src[j+2 : j+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				j += 5
			default:
				return false
			}
		}
	}
	return false
}

// number reads a number in JSON's grammar.
func (c *fastConv) number() ([]byte, bool) {
	c.space()
	s, i := c.src, c.i
	digits := func() bool {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	num := s[c.i:i]
	c.i = i
	return num, true
}

// smallInt parses a JSON number made of at most 18 digits (and a sign).
func smallInt(num []byte) (int64, bool) {
	digits := num
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	if num[0] == '-' {
		n = -n
	}
	return n, true
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

// appendJSONString appends s quoted as encoding/json quotes it (with HTML
// escaping), for a string with no control characters and valid UTF-8: an
// attribute name, or a string that had no escapes in valid JSON.
func appendJSONString(out []byte, s string) []byte {
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		switch b := s[i]; b {
		case '<', '>', '&':
			out = append(out, s[start:i]...)
			out = append(out, `\u00`...)
			out = append(out, "0123456789abcdef"[b>>4], "0123456789abcdef"[b&0xF])
			start = i + 1
		case '"', '\\':
			out = append(out, s[start:i]...)
			out = append(out, '\\', b)
			start = i + 1
		case 0xE2:
			// U+2028 and U+2029 are escaped for JavaScript.
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
				out = append(out, s[start:i]...)
				out = append(out, `\u202`...)
				out = append(out, "89"[s[i+2]-0xA8])
				i += 2
				start = i + 1
			}
		}
	}
	out = append(out, s[start:]...)
	return append(out, '"')
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
