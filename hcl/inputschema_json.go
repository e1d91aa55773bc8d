package hcl

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// schemaSource renders input_schema's value v as compact JSON, with object
// keys in the order expr writes them: cty keeps an object's attributes
// sorted, and a schema is easier to read (and matches what its author
// wrote) in its own order. A string of JSON is kept as written, but for
// its space; jsonencode(...) of an object is rendered from the object.
// Keys whose order the expression does not show (a JSON-syntax config, a
// value from a function) come sorted.
func schemaSource(expr hcl.Expression, v cty.Value, ctx *hcl.EvalContext) ([]byte, error) {
	expr = unwrapExpr(expr)
	if v.Type() == cty.String {
		if call, ok := expr.(*hclsyntax.FunctionCallExpr); ok && call.Name == "jsonencode" && len(call.Args) == 1 && !call.ExpandFinal {
			arg, diags := call.Args[0].Value(ctx)
			if ty := arg.Type(); !diags.HasErrors() && arg.IsWhollyKnown() && (ty.IsObjectType() || ty.IsMapType()) {
				arg, _ = arg.UnmarkDeep()
				return schemaSource(call.Args[0], arg, ctx)
			}
		}
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(v.AsString())); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	var b bytes.Buffer
	if err := writeOrdered(&b, v, expr); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeOrdered writes v as JSON; expr, when it is the object or tuple
// constructor v came from, gives the order of object keys.
func writeOrdered(b *bytes.Buffer, v cty.Value, expr hcl.Expression) error {
	expr = unwrapExpr(expr)
	ty := v.Type()
	switch {
	case v.IsNull():
		b.WriteString("null")
	case ty.IsObjectType() || ty.IsMapType():
		keys, exprs := objectKeys(expr)
		var rest []string
		for it := v.ElementIterator(); it.Next(); {
			k, _ := it.Element()
			if _, ok := exprs[k.AsString()]; !ok {
				rest = append(rest, k.AsString())
			}
		}
		sort.Strings(rest)
		b.WriteByte('{')
		n := 0
		for _, k := range append(keys, rest...) {
			var e cty.Value
			if ty.IsObjectType() {
				if !ty.HasAttribute(k) {
					continue
				}
				e = v.GetAttr(k)
			} else {
				e = v.Index(cty.StringVal(k))
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			writeString(b, k)
			b.WriteByte(':')
			if err := writeOrdered(b, e, exprs[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case ty.IsTupleType() || ty.IsListType() || ty.IsSetType():
		var elems []hclsyntax.Expression
		if tc, ok := expr.(*hclsyntax.TupleConsExpr); ok && len(tc.Exprs) == v.LengthInt() && !ty.IsSetType() {
			elems = tc.Exprs
		}
		b.WriteByte('[')
		i := 0
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if i > 0 {
				b.WriteByte(',')
			}
			var ee hcl.Expression
			if elems != nil {
				ee = elems[i]
			}
			if err := writeOrdered(b, e, ee); err != nil {
				return err
			}
			i++
		}
		b.WriteByte(']')
	case ty == cty.String:
		writeString(b, v.AsString())
	default:
		out, err := ctyjson.Marshal(v, ty)
		if err != nil {
			return err
		}
		b.Write(out)
	}
	return nil
}

// objectKeys lists the keys of an object constructor in the order written,
// with the expression of each value; nothing for another expression.
func objectKeys(expr hcl.Expression) ([]string, map[string]hcl.Expression) {
	oc, ok := expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return nil, nil
	}
	var keys []string
	exprs := make(map[string]hcl.Expression, len(oc.Items))
	for _, item := range oc.Items {
		name := objectKey(item.KeyExpr)
		if _, dup := exprs[name]; !dup {
			keys = append(keys, name)
		}
		exprs[name] = item.ValueExpr
	}
	return keys, exprs
}

// writeString writes s as a JSON string, without escaping HTML characters.
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode's newline
}
