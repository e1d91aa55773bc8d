package evalcap

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// JSONDecodeFunc is jsondecode(STR), in time and memory that grow with the
// text, and refusing a text of more than MaxElements values; a number no
// 64-bit float holds is kept as its text, as in a parameter of type any.
// cty's allocated kilobytes for each value it decoded, and more for each
// level of nesting. An array whose elements are all of one type is a
// list, not a tuple: join and the other functions that take lists take a
// list at once, and a tuple in a time that grows with the square of its
// length.
var JSONDecodeFunc = function.New(&function.Spec{
	Description: stdlib.JSONDecodeFunc.Description(),
	Params:      stdlib.JSONDecodeFunc.Params(),
	Type: func(args []cty.Value) (cty.Type, error) {
		if !args[0].IsKnown() {
			// cty's guesses the type from a known prefix, if any.
			return stdlib.JSONDecodeFunc.ReturnTypeForValues(args)
		}
		// The value's own type, which Impl finds without decoding the
		// text twice.
		return cty.DynamicPseudoType, nil
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		s := args[0].AsString()
		if n := jsonValues(s); n > MaxElements {
			return cty.NilVal, &LimitError{Kind: Elements, What: "jsondecode()", Size: n, Max: MaxElements}
		}
		v, err := decodeJSON(s)
		if err != nil {
			return cty.NilVal, function.NewArgError(0, err)
		}
		return v, nil
	},
})

// jsonValues is about how many values the JSON text s holds, never fewer:
// one more than its commas, and one for each array and object, outside
// strings.
func jsonValues(s string) int64 {
	n := int64(1)
	in := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ',' || c == '[' || c == '{'):
			n++
		}
	}
	return n
}

// decodeJSON decodes one JSON value, and nothing after it.
func decodeJSON(s string) (cty.Value, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		if errors.Is(err, io.EOF) {
			return cty.NilVal, errors.New("the text is empty, and is not JSON")
		}
		return cty.NilVal, fmt.Errorf("the text is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return cty.NilVal, errors.New("the text has more after its JSON value")
	}
	return jsonValue(x)
}

// JSONValue is the value jsondecode gives the JSON that encoding/json
// decoded to x (with UseNumber, or with float64 numbers): an array whose
// elements are all of one type is a list. claim() gives a token's claims
// so.
func JSONValue(x any) (cty.Value, error) { return jsonValue(x) }

// jsonValue is the value of x, decoded by encoding/json with UseNumber.
func jsonValue(x any) (cty.Value, error) {
	switch x := x.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case bool:
		return cty.BoolVal(x), nil
	case float64:
		return cty.NumberFloatVal(x), nil
	case string:
		return cty.StringVal(x), nil
	case json.Number:
		v, err := cty.ParseNumberVal(string(x))
		if err != nil {
			return cty.NilVal, err
		}
		if !inFloat64Range(v.AsBigFloat()) {
			// Kept as its text, as in a parameter of type any: writing
			// such a number out takes minutes.
			return cty.StringVal(string(x)), nil
		}
		return v, nil
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal, nil
		}
		elems := make([]cty.Value, len(x))
		for i, e := range x {
			v, err := jsonValue(e)
			if err != nil {
				return cty.NilVal, err
			}
			elems[i] = v
		}
		return Sequence(elems), nil
	case map[string]any:
		if len(x) == 0 {
			return cty.EmptyObjectVal, nil
		}
		attrs := make(map[string]cty.Value, len(x))
		for k, e := range x {
			v, err := jsonValue(e)
			if err != nil {
				return cty.NilVal, err
			}
			attrs[k] = v
		}
		return cty.ObjectVal(attrs), nil
	}
	return cty.NilVal, fmt.Errorf("unexpected JSON value %T", x)
}

// Sequence is the list of elems when they are all of one type (other than
// the dynamic pseudo-type), their tuple otherwise; elems is not empty. A
// list of a caller's values is taken by join and the other functions that
// take lists at once, a tuple in a time that grows with the square of its
// length (cty's conversion compares each element's type with each other's).
func Sequence(elems []cty.Value) cty.Value {
	ty := elems[0].Type()
	if ty == cty.DynamicPseudoType {
		return cty.TupleVal(elems)
	}
	for _, e := range elems[1:] {
		if !e.Type().Equals(ty) {
			return cty.TupleVal(elems)
		}
	}
	return cty.ListVal(elems)
}

// inFloat64Range reports whether a 64-bit float holds f: 0, or a magnitude
// from 4.9e-324 to 1.8e308.
func inFloat64Range(f *big.Float) bool {
	if f.Sign() == 0 {
		return true
	}
	g, _ := f.Float64()
	return !math.IsInf(g, 0) && g != 0
}
