package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/evalcap"
	"github.com/toolhost/toolhost/internal/suggest"
)

// ArgumentError is a tools/call whose arguments do not fit the tool's
// inputSchema. Its message names the parameter and the rule.
type ArgumentError struct {
	// Param is the parameter's name; Path the place inside its value, such
	// as "[1].title", or "" for the value itself.
	Param string
	Path  string
	Msg   string
}

func (e *ArgumentError) Error() string {
	switch {
	case e.Param == "":
		return "invalid arguments: " + e.Msg
	case e.Path != "":
		return fmt.Sprintf("invalid argument %q at %s: %s", e.Param, e.Param+e.Path, e.Msg)
	}
	return fmt.Sprintf("invalid argument %q: %s", e.Param, e.Msg)
}

// ArgumentErrors are the problems of a call's arguments when there are
// several: each is an *ArgumentError (errors.As finds the first).
type ArgumentErrors struct {
	errs []error
}

// Error lists the problems, one a line, each but the last ended with ';'
// (callers end the message).
func (e *ArgumentErrors) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems with the arguments:", len(e.errs))
	for i, err := range e.errs {
		b.WriteString("\n- ")
		b.WriteString(err.Error())
		if i < len(e.errs)-1 {
			b.WriteByte(';')
		}
	}
	return b.String()
}

// Unwrap gives the problems, for errors.As.
func (e *ArgumentErrors) Unwrap() []error { return e.errs }

// DecodeArgs validates raw JSON arguments against the tool's parameters and
// returns the "param" object: every declared parameter is present, absent
// optional ones are their default or null. Nothing runs before this passes.
func DecodeArgs(t *thcl.Tool, raw json.RawMessage) (cty.Value, error) {
	if err := countArgValues(raw); err != nil {
		return cty.NilVal, err
	}
	if t.RawInput != nil {
		return decodeRawArgs(t.RawInput, raw)
	}
	trimmed := bytes.TrimSpace(raw)
	if obj, ok := plainArgs(t, trimmed); ok { // args_plain.go
		return obj, nil
	}
	return decodeArgs(t, trimmed)
}

// decodeArgs is DecodeArgs of trimmed arguments for a tool of param
// blocks, whatever they hold: every problem is reported.
func decodeArgs(t *thcl.Tool, trimmed []byte) (cty.Value, error) {
	var obj map[string]any
	if m, ok := fastArgs(trimmed); ok {
		obj = m
	} else if len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return cty.NilVal, &ArgumentError{Msg: "arguments are not valid JSON: " + err.Error()}
		}
		if dec.InputOffset() != int64(len(trimmed)) {
			return cty.NilVal, &ArgumentError{Msg: "arguments are not valid JSON: there is data after the arguments object"}
		}
		m, ok := v.(map[string]any)
		if !ok {
			return cty.NilVal, &ArgumentError{Msg: fmt.Sprintf("arguments must be a JSON object, got %s", jsonKind(v))}
		}
		obj = m
	}
	// Every problem is reported at once, so that a client (a model) can
	// correct all of them in one try; a call with none pays nothing more.
	var problems []*ArgumentError
	var unknown []string
	for k := range obj {
		if !declared(t, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		names := make([]string, len(t.Params))
		for i, p := range t.Params {
			names[i] = p.Name
		}
		sort.Strings(unknown)
		for _, u := range unknown {
			msg := "this tool has no such parameter"
			if s := suggest.Closest(u, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			if len(names) == 0 {
				msg = "this tool takes no arguments"
			} else {
				msg += "; its parameters are " + strings.Join(names, ", ")
			}
			problems = append(problems, &ArgumentError{Param: shortName(u), Msg: msg})
		}
	}
	vals := make(map[string]cty.Value, len(t.Params))
	for _, p := range t.Params {
		v, present := obj[p.Name]
		if !present || v == nil {
			switch {
			case p.Default != cty.NilVal:
				vals[p.Name] = p.Default
			case p.Required:
				problems = append(problems, &ArgumentError{Param: p.Name, Msg: fmt.Sprintf("required, of type %s", p.Type)})
			default:
				vals[p.Name] = cty.NullVal(p.Type.Cty())
			}
			continue
		}
		cv, err := decodeValue(p.Type, v, "")
		if err != nil {
			ve, isValueErr := err.(*valueError)
			switch {
			case p.Sensitive:
				// The message would quote what the client sent.
				path := ""
				if isValueErr {
					path = ve.path
				}
				problems = append(problems, &ArgumentError{Param: p.Name, Path: path, Msg: sensitiveShown + " does not fit the parameter's type, " + p.Type.String()})
			case isValueErr:
				problems = append(problems, &ArgumentError{Param: p.Name, Path: ve.path, Msg: ve.msg})
			default:
				problems = append(problems, &ArgumentError{Param: p.Name, Msg: err.Error()})
			}
			continue
		}
		if msg := p.Check(cv); msg != "" {
			shown := display(v)
			if p.Sensitive {
				shown = sensitiveShown
			}
			problems = append(problems, &ArgumentError{Param: p.Name, Msg: fmt.Sprintf("%s %s", shown, msg)})
			continue
		}
		vals[p.Name] = cv
	}
	switch len(problems) {
	case 0:
	case 1:
		return cty.NilVal, problems[0]
	default:
		errs := make([]error, len(problems))
		for i, p := range problems {
			errs[i] = p
		}
		return cty.NilVal, &ArgumentErrors{errs: errs}
	}
	return paramObject(vals), nil
}

// paramObject is the "param" object of the parameters' values.
func paramObject(vals map[string]cty.Value) cty.Value {
	if len(vals) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(vals)
}

// MaxArgValues is the most JSON values the arguments of one call may hold,
// all parameters together: each array element, object member and scalar
// counts one. A value decoded for HCL takes a few hundred bytes, some
// hundred times its JSON text for an array of small numbers, so a message
// of 4 MiB could otherwise take half a gigabyte; this caps a call's at
// about 20 MiB. The count is made on the raw text, before anything is
// decoded.
const MaxArgValues = 65536

// countArgValues refuses arguments of more than MaxArgValues values, naming
// the parameter in which the count passed the cap. Invalid JSON is left to
// the decoders to refuse.
func countArgValues(b []byte) error {
	if n, keyStart := scanArgValues(b, MaxArgValues); n > MaxArgValues {
		return &ArgumentError{Param: argName(b, keyStart), Msg: fmt.Sprintf(
			"the arguments hold more than %d JSON values (array elements, object members and other values, all parameters together), the most a call may send; send fewer elements", MaxArgValues)}
	}
	return nil
}

// scanArgValues counts the values of the JSON text b as jsondecode does
// (one more than the commas, and one for each array and object, outside
// strings), which is never fewer than there are, and stops once the count
// passes limit. keyStart is where the key of the top-level member the scan
// stopped in starts (its opening quote), or -1.
func scanArgValues(b []byte, limit int) (n, keyStart int) {
	n = 1
	depth := 0
	in := false
	key := false
	keyStart = -1
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in && c == '\\':
			i++
			continue
		case c == '"':
			if !in && key && depth == 1 {
				keyStart, key = i, false
			}
			in = !in
			continue
		case in:
			continue
		case c == '[' || c == '{':
			depth++
			n++
			key = depth == 1 && c == '{'
		case c == ']' || c == '}':
			depth--
		case c == ',':
			n++
			key = depth == 1
		}
		if n > limit {
			return n, keyStart
		}
	}
	return n, keyStart
}

// MaxArgValuesHeld is the most JSON values the arguments of the calls in
// flight hold together, decoded: sixteen calls at MaxArgValues, about 300
// MiB. A call waiting for a slot (max_concurrent_calls) holds its decoded
// arguments, and a client may send many.
const MaxArgValuesHeld = 16 * MaxArgValues

// smallArgs is how many values a call's arguments may hold and still run
// when the calls in flight hold MaxArgValuesHeld: large calls cannot keep
// out small ones.
const smallArgs = 1024

// argValuesHeld counts the values of the arguments of the calls in flight,
// in every registry (a reload keeps the calls of the one before).
var argValuesHeld atomic.Int64

// holdArgValues counts n values of a call's arguments as held, until
// releaseArgValues(n) is called; it refuses, holding nothing, a call of
// more than smallArgs values that would pass MaxArgValuesHeld.
func holdArgValues(n int) error {
	if held := argValuesHeld.Add(int64(n)); n > smallArgs && held > MaxArgValuesHeld {
		argValuesHeld.Add(-int64(n))
		return fmt.Errorf("toolhost is busy, so the call was not run: the arguments of the calls in flight hold %d JSON values, and this call's %d would pass the %d they may hold at once; call again once some of them have finished, or send fewer elements",
			held-int64(n), n, MaxArgValuesHeld)
	}
	return nil
}

// releaseArgValues ends the hold of n values holdArgValues took.
func releaseArgValues(n int) { argValuesHeld.Add(-int64(n)) }

// argName is the object key whose opening quote is at b[start], shortened
// for a message (shortName); "" when there is none.
func argName(b []byte, start int) string {
	if start < 0 {
		return ""
	}
	end := start + 1
	for end < len(b) && b[end] != '"' {
		if b[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(b) {
		return ""
	}
	var name string
	if json.Unmarshal(b[start:end+1], &name) != nil {
		return ""
	}
	return shortName(name)
}

// declared reports whether t has a parameter named name. Tools have few
// parameters: a scan is cheaper than a map built for every call.
func declared(t *thcl.Tool, name string) bool {
	for _, p := range t.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// fastArgs decodes an arguments object the way json.Decoder with UseNumber
// decodes it into a map[string]any, for the usual case: valid JSON, an
// object, and strings without escapes that are valid UTF-8 (their bytes are
// then the string). It reports false for anything else, which the general
// decoder then handles with its own results and error messages; it costs a
// fifth of the general decoder and none of its deep stack.
func fastArgs(b []byte) (map[string]any, bool) {
	if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
		return nil, false
	}
	p := argParser{b: b, ok: true}
	v := p.value()
	m, isMap := v.(map[string]any)
	return m, p.ok && isMap
}

// argParser parses JSON already known to be valid.
type argParser struct {
	b  []byte
	i  int
	ok bool // false once something is met that fastArgs leaves to the general decoder
}

func (p *argParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *argParser) value() any {
	p.space()
	switch c := p.b[p.i]; c {
	case '{':
		p.i++
		m := map[string]any{}
		p.space()
		if p.b[p.i] == '}' {
			p.i++
			return m
		}
		for p.ok {
			p.space()
			k := p.str()
			p.space()
			p.i++ // ':'
			v := p.value()
			if !p.ok {
				return nil
			}
			m[k] = v
			p.space()
			if p.b[p.i] == '}' {
				p.i++
				return m
			}
			p.i++ // ','
		}
		return nil
	case '[':
		p.i++
		arr := []any{}
		p.space()
		if p.b[p.i] == ']' {
			p.i++
			return arr
		}
		for p.ok {
			arr = append(arr, p.value())
			p.space()
			if p.b[p.i] == ']' {
				p.i++
				return arr
			}
			p.i++ // ','
		}
		return nil
	case '"':
		return p.str()
	case 't':
		p.i += 4
		return true
	case 'f':
		p.i += 5
		return false
	case 'n':
		p.i += 4
		return nil
	}
	start := p.i
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '-', '+', '.', 'e', 'E':
			p.i++
			continue
		}
		break
	}
	return json.Number(p.b[start:p.i])
}

// str reads a string at p.i; one with an escape or invalid UTF-8 stops the
// fast path.
func (p *argParser) str() string {
	start := p.i + 1
	end := bytes.IndexByte(p.b[start:], '"')
	if end < 0 {
		p.ok = false
		return ""
	}
	s := p.b[start : start+end]
	if bytes.IndexByte(s, '\\') >= 0 || !utf8.Valid(s) {
		p.ok = false
		return ""
	}
	p.i = start + end + 1
	return string(s)
}

// valueError is a value that does not fit its type, at a path relative to
// the parameter, such as "[1].title" ("" for the parameter itself).
type valueError struct{ path, msg string }

func (e *valueError) Error() string { return e.path + ": " + e.msg }

// decodeValue converts a JSON value decoded with UseNumber to the declared
// type, strictly: no string-to-number or number-to-string conversion. It is
// one switch over the kinds of type, each case a few lines, kept together
// so that the conversions can be read side by side.
func decodeValue(t *thcl.Type, v any, path string) (cty.Value, error) {
	at := func(msg string) error { return &valueError{path: path, msg: msg} }
	want := func() error { return at(fmt.Sprintf("must be %s, got %s", article(t), jsonKind(v))) }
	if v == nil {
		if t.Kind == thcl.KindAny {
			return cty.NullVal(cty.DynamicPseudoType), nil
		}
		return cty.NilVal, want()
	}
	switch t.Kind {
	case thcl.KindString:
		s, ok := v.(string)
		if !ok {
			return cty.NilVal, want()
		}
		return cty.StringVal(s), nil
	case thcl.KindNumber, thcl.KindInteger:
		n, ok := v.(json.Number)
		if !ok {
			return cty.NilVal, want()
		}
		f, _, err := big.ParseFloat(string(n), 10, 512, big.ToNearestEven)
		if err != nil {
			return cty.NilVal, want()
		}
		if !inFloat64Range(f) {
			return cty.NilVal, at(fmt.Sprintf("is out of range: %s is beyond what a 64-bit number holds (0, or a magnitude from 4.9e-324 to 1.8e308)", shortNumber(string(n))))
		}
		if t.Kind == thcl.KindInteger && !f.IsInt() {
			return cty.NilVal, at(fmt.Sprintf("must be a whole number, got %s", n))
		}
		return cty.NumberVal(f), nil
	case thcl.KindBool:
		b, ok := v.(bool)
		if !ok {
			return cty.NilVal, want()
		}
		return cty.BoolVal(b), nil
	case thcl.KindList, thcl.KindSet, thcl.KindTuple:
		arr, ok := v.([]any)
		if !ok {
			return cty.NilVal, want()
		}
		if t.Kind == thcl.KindTuple && len(arr) != len(t.Elems) {
			return cty.NilVal, at(fmt.Sprintf("must have exactly %d elements, got %d", len(t.Elems), len(arr)))
		}
		elems := make([]cty.Value, len(arr))
		for i, e := range arr {
			et := t.Elem
			if t.Kind == thcl.KindTuple {
				et = t.Elems[i]
			}
			ev, err := decodeValue(et, e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return cty.NilVal, err
			}
			elems[i] = ev
		}
		switch {
		case t.Kind == thcl.KindTuple:
			return cty.TupleVal(elems), nil
		case len(elems) == 0 && t.Kind == thcl.KindSet:
			return cty.SetValEmpty(t.Elem.Cty()), nil
		case len(elems) == 0:
			return cty.ListValEmpty(t.Elem.Cty()), nil
		}
		elems, err := oneType(elems)
		if err != nil {
			return cty.NilVal, at(err.Error())
		}
		if t.Kind == thcl.KindSet {
			set := cty.SetVal(elems)
			if set.LengthInt() != len(elems) {
				return cty.NilVal, at("has duplicate items; each value may appear once")
			}
			return set, nil
		}
		return cty.ListVal(elems), nil
	case thcl.KindMap:
		m, ok := v.(map[string]any)
		if !ok {
			return cty.NilVal, want()
		}
		if len(m) == 0 {
			return cty.MapValEmpty(t.Elem.Cty()), nil
		}
		keys := slices.Sorted(maps.Keys(m))
		elems := make([]cty.Value, len(keys))
		for i, k := range keys {
			ev, err := decodeValue(t.Elem, m[k], path+"."+k)
			if err != nil {
				return cty.NilVal, err
			}
			elems[i] = ev
		}
		elems, err := oneType(elems)
		if err != nil {
			return cty.NilVal, at(err.Error())
		}
		vals := make(map[string]cty.Value, len(m))
		for i, k := range keys {
			vals[k] = elems[i]
		}
		return cty.MapVal(vals), nil
	case thcl.KindObject:
		m, ok := v.(map[string]any)
		if !ok {
			return cty.NilVal, want()
		}
		for k := range m {
			if _, ok := t.Attrs[k]; !ok {
				return cty.NilVal, at(fmt.Sprintf("unexpected property %q; allowed: %s", k, strings.Join(t.AttrOrder, ", ")))
			}
		}
		vals := make(map[string]cty.Value, len(t.Attrs))
		for _, name := range t.AttrOrder {
			at := t.Attrs[name]
			e, present := m[name]
			if !present || e == nil {
				if t.Optional[name] {
					vals[name] = cty.NullVal(at.Cty())
					continue
				}
				return cty.NilVal, &valueError{path: path + "." + name, msg: fmt.Sprintf("required, of type %s", at)}
			}
			ev, err := decodeValue(at, e, path+"."+name)
			if err != nil {
				return cty.NilVal, err
			}
			vals[name] = ev
		}
		if len(vals) == 0 {
			return cty.EmptyObjectVal, nil
		}
		return cty.ObjectVal(vals), nil
	}
	return anyValue(v), nil
}

// anyValue converts a JSON value of undeclared type to cty.
func anyValue(v any) cty.Value {
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType)
	case string:
		return cty.StringVal(x)
	case bool:
		return cty.BoolVal(x)
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, 512, big.ToNearestEven)
		if err != nil || !inFloat64Range(f) {
			// Kept as its text: formatting such a number takes seconds.
			return cty.StringVal(string(x))
		}
		return cty.NumberVal(f)
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal
		}
		elems := make([]cty.Value, len(x))
		for i, e := range x {
			elems[i] = anyValue(e)
		}
		// A list when the elements are all of one type: a tuple of many
		// elements takes cty seconds to convert to a list.
		return evalcap.Sequence(elems)
	case map[string]any:
		if len(x) == 0 {
			return cty.EmptyObjectVal
		}
		vals := make(map[string]cty.Value, len(x))
		for k, e := range x {
			vals[k] = anyValue(e)
		}
		return cty.ObjectVal(vals)
	}
	return cty.NullVal(cty.DynamicPseudoType)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func article(t *thcl.Type) string {
	switch t.Kind {
	case thcl.KindString:
		return "a string"
	case thcl.KindNumber:
		return "a number"
	case thcl.KindInteger:
		return "an integer"
	case thcl.KindBool:
		return "a boolean"
	case thcl.KindList, thcl.KindSet, thcl.KindTuple:
		return "an array (" + t.String() + ")"
	case thcl.KindMap, thcl.KindObject:
		return "an object (" + t.String() + ")"
	}
	return "a value"
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %s", display(x))
	case json.Number:
		return "the number " + string(x)
	case bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// sensitiveShown stands for the value of a sensitive parameter in a
// message, as redaction writes it elsewhere.
const sensitiveShown = "(sensitive value)"

// display renders a JSON value for a message, shortened.
func display(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// inFloat64Range reports whether f is zero or within what a float64 holds.
// Numbers far outside it (1e1000000) are refused: nothing a tool does
// needs them, and HCL takes seconds to format them into a string.
func inFloat64Range(f *big.Float) bool {
	if f.Sign() == 0 {
		return true
	}
	g, _ := f.Float64()
	return !math.IsInf(g, 0) && g != 0
}

// shortNumber shortens a long number literal for a message.
func shortNumber(s string) string {
	if len(s) > 40 {
		return s[:20] + "..." + s[len(s)-10:]
	}
	return s
}

// outOfRange finds a number no float64 holds inside v; path says where.
func outOfRange(v any, path string) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, 512, big.ToNearestEven)
		return path, err == nil && inFloat64Range(f)
	case map[string]any:
		for k, e := range x {
			if p, ok := outOfRange(e, joinPath(path, k)); !ok {
				return p, false
			}
		}
	case []any:
		for i, e := range x {
			if p, ok := outOfRange(e, fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
	}
	return path, true
}

// answerText words an error of DecodeArgs over an ask form's answers: the
// user filled in fields of a form, and did not pass arguments to a tool.
// Every problem is reworded, not only the first.
func answerText(err error) string {
	one := func(e error) string {
		ae, ok := e.(*ArgumentError)
		if !ok {
			return e.Error()
		}
		msg := strings.Replace(ae.Msg, "this tool has no such parameter", "the form has no such field", 1)
		msg = strings.Replace(msg, "; its parameters are ", "; its fields are ", 1)
		switch {
		case ae.Param == "":
			return "invalid answers: " + msg
		case ae.Path != "":
			return fmt.Sprintf("invalid answer %q at %s: %s", ae.Param, ae.Param+ae.Path, msg)
		}
		return fmt.Sprintf("invalid answer %q: %s", ae.Param, msg)
	}
	errs, ok := err.(*ArgumentErrors)
	if !ok {
		return one(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems with the answers:", len(errs.errs))
	for i, e := range errs.errs {
		b.WriteString("\n- ")
		b.WriteString(one(e))
		if i < len(errs.errs)-1 {
			b.WriteByte(';')
		}
	}
	return b.String()
}
