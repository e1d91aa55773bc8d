package host

import (
	"bytes"
	"encoding/json"
	"sync"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"

	thcl "github.com/toolhost/toolhost/hcl"
)

// The decoding of plain arguments. DecodeArgs decoded every call's
// arguments into a map of any (checking the JSON with json.Valid first),
// then converted each value to cty: a ninth of the server's CPU for a
// template call (BENCHMARKS.md, "The stdio template call (issue 38, round
// three)"). When every parameter of a tool is a string, number, integer
// or bool, the usual call (an object of declared parameters, each once,
// each of its type and within its checks) is read in one pass straight
// into the parameters' values. Anything else, a call with a mistake
// included, is left to the general decoder, which gives the same values
// and writes the messages.

// plainParams is the most parameters plainArgs reads: it marks the ones
// it has seen in one word.
const plainParams = 64

// plainArgs reads b, trimmed arguments of a tool whose parameters are all
// of a primitive type, into the "param" object DecodeArgs makes of them
// when the arguments have no problem. ok is false for anything it does
// not read: a tool of another parameter, or arguments that are not such
// an object, or that have a problem; the general decoder then takes them.
func plainArgs(t *thcl.Tool, b []byte) (_ cty.Value, ok bool) {
	if len(t.Params) > plainParams || len(b) < 2 || b[0] != '{' {
		return cty.NilVal, false
	}
	for _, p := range t.Params {
		switch p.Type.Kind {
		case thcl.KindString, thcl.KindNumber, thcl.KindInteger, thcl.KindBool:
		default:
			return cty.NilVal, false
		}
	}
	// The values are gathered in a map of the pool's, which
	// cty.ObjectVal copies.
	vals := plainVals.Get().(map[string]cty.Value)
	defer func() {
		clear(vals)
		plainVals.Put(vals)
	}()
	if !readPlainArgs(t, b, vals) {
		return cty.NilVal, false
	}
	return paramObject(vals), true
}

// plainVals are the maps plainArgs gathers values in.
var plainVals = sync.Pool{New: func() any { return map[string]cty.Value{} }}

// readPlainArgs is plainArgs's reading of b into vals.
func readPlainArgs(t *thcl.Tool, b []byte, vals map[string]cty.Value) (ok bool) {
	var seen uint64 // the parameters given, a null included
	i := jsonSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return false
			}
			key, end, ok := plainString(b, i)
			if !ok {
				return false
			}
			j := paramIndex(t, key)
			if j < 0 || seen&(1<<j) != 0 {
				return false // not declared, or given twice
			}
			seen |= 1 << j
			i = jsonSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return false
			}
			i = jsonSpace(b, i+1)
			if i, ok = plainValue(t.Params[j], b, i, vals); !ok {
				return false
			}
			i = jsonSpace(b, i)
			if i >= len(b) {
				return false
			}
			if b[i] == '}' {
				i++
				break
			}
			if b[i] != ',' {
				return false
			}
			i = jsonSpace(b, i+1)
		}
	}
	if i != len(b) {
		return false
	}
	for _, p := range t.Params {
		if _, given := vals[p.Name]; given {
			continue
		}
		switch {
		case p.Default != cty.NilVal:
			vals[p.Name] = p.Default
		case p.Required:
			return false
		default:
			vals[p.Name] = cty.NullVal(p.Type.Cty())
		}
	}
	return true
}

// plainValue reads the value at b[i] of parameter p into vals (nothing for
// a null, which stands for a parameter not given), and returns where it
// ends; ok is false for a value not of p's type or outside its checks.
func plainValue(p *thcl.Param, b []byte, i int, vals map[string]cty.Value) (end int, ok bool) {
	if i >= len(b) {
		return 0, false
	}
	var v cty.Value
	switch c := b[i]; {
	case c == 'n':
		if !bytes.HasPrefix(b[i:], []byte("null")) {
			return 0, false
		}
		return i + 4, true
	case c == '"':
		if p.Type.Kind != thcl.KindString {
			return 0, false
		}
		var s []byte
		if s, end, ok = plainString(b, i); !ok {
			return 0, false
		}
		v = cty.StringVal(string(s))
	case c == 't' || c == 'f':
		if p.Type.Kind != thcl.KindBool {
			return 0, false
		}
		switch {
		case bytes.HasPrefix(b[i:], []byte("true")):
			v, end = cty.True, i+4
		case bytes.HasPrefix(b[i:], []byte("false")):
			v, end = cty.False, i+5
		default:
			return 0, false
		}
	case c == '-' || c >= '0' && c <= '9':
		if p.Type.Kind != thcl.KindNumber && p.Type.Kind != thcl.KindInteger {
			return 0, false
		}
		if end = jsonNumber(b, i); end < 0 {
			return 0, false
		}
		var err error
		if v, err = decodeValue(p.Type, json.Number(b[i:end]), ""); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if p.Check(v) != "" {
		return 0, false
	}
	vals[p.Name] = v
	return end, true
}

// paramIndex is the index of t's parameter named key, or -1.
func paramIndex(t *thcl.Tool, key []byte) int {
	for j, p := range t.Params {
		if p.Name == string(key) {
			return j
		}
	}
	return -1
}

// jsonSpace is the index of the first byte at or after i that is not
// JSON whitespace.
func jsonSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// plainString reads the JSON string whose opening quote is at b[i]: its
// bytes, which are its value, and the index after its closing quote. ok is
// false for a string with an escape, a control character or invalid
// UTF-8, whose bytes are not its value, or which is not JSON.
func plainString(b []byte, i int) (s []byte, end int, ok bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			s = b[i+1 : j]
			return s, j + 1, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// jsonNumber is the index after the JSON number at b[i], or -1 when what
// is there is not one: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func jsonNumber(b []byte, i int) int {
	digits := func(i int) int {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return -1
		}
		return i
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	default:
		if i = digits(i); i < 0 {
			return -1
		}
	}
	if i < len(b) && b[i] == '.' {
		if i = digits(i + 1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digits(i); i < 0 {
			return -1
		}
	}
	return i
}
