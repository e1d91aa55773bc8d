package hcl

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// EncodeJSON encodes a value of type t as JSON, the way clients see values
// of that type: optional object attributes that are null are left out (the
// schema does not require them, and does not allow null), and numbers are
// written without cty's slow arbitrary-precision formatting.
func EncodeJSON(t *Type, v cty.Value) json.RawMessage {
	return appendValue(nil, t, v)
}

// appendValue encodes a value of the declared type as JSON. Optional object
// attributes that are null are left out, so that the output matches the
// outputSchema, where they are simply not required.
func appendValue(b []byte, t *Type, v cty.Value) []byte {
	if v.IsNull() {
		return append(b, "null"...)
	}
	switch t.Kind {
	case KindString:
		q, _ := json.Marshal(v.AsString())
		return append(b, q...)
	case KindNumber, KindInteger:
		return AppendNumber(b, v.AsBigFloat())
	case KindBool:
		return strconv.AppendBool(b, v.True())
	case KindList, KindSet:
		b = append(b, '[')
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			_, ev := it.Element()
			b = appendValue(b, t.Elem, ev)
		}
		return append(b, ']')
	case KindTuple:
		b = append(b, '[')
		for i, et := range t.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, et, v.Index(cty.NumberIntVal(int64(i))))
		}
		return append(b, ']')
	case KindMap:
		b = append(b, '{')
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			k, ev := it.Element()
			q, _ := json.Marshal(k.AsString())
			b = append(append(b, q...), ':')
			b = appendValue(b, t.Elem, ev)
		}
		return append(b, '}')
	case KindObject:
		b = append(b, '{')
		first := true
		for _, n := range t.AttrOrder {
			av := v.GetAttr(n)
			if av.IsNull() && t.Optional[n] {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			q, _ := json.Marshal(n)
			b = append(append(b, q...), ':')
			b = appendValue(b, t.Attrs[n], av)
		}
		return append(b, '}')
	}
	raw, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// AppendNumber appends a number as EncodeJSON writes it: an integer exactly,
// however large, and any other number in the shortest form that reads back
// as the same value.
func AppendNumber(b []byte, bf *big.Float) []byte {
	if i, acc := bf.Int64(); acc == big.Exact {
		return strconv.AppendInt(b, i, 10)
	}
	if bf.IsInt() && bf.MantExp(nil) <= int(bf.Prec()) {
		return bf.Append(b, 'f', 0) // exact, however large
	}
	// An integer wider than the precision (1e300 at 512 bits) is not
	// exact: its digits would be the rounding's. The shortest form is.
	if f, acc := bf.Float64(); acc == big.Exact && !math.IsInf(f, 0) {
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	}
	return bf.Append(b, 'g', -1)
}
