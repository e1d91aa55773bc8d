package evalcap

import (
	"math/big"
	"slices"
	"strconv"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// watched is fn held to b: each call first checks b's deadline, its
// context and its limits, and the value it returns is charged to b, so
// that a chain of functions that each make their argument a few times
// larger (base64encode, urlencode, ...) stops at the limit of a value or
// of the total, not after it has grown for many steps. A tuple passed
// where fn takes a list or a set is converted by tupleArg, and what
// flatten returns is a list when it can be (tupleAsList).
func watched(name string, fn function.Function, b *Budget) function.Function {
	loose, varParam, convertArgs := looseParams(fn)
	return function.New(&function.Spec{
		Description: fn.Description(),
		Params:      loose,
		VarParam:    varParam,
		Type: func(args []cty.Value) (cty.Type, error) {
			args, lerr := convertArgs(args)
			if lerr != nil {
				return cty.NilType, b.fail(named(lerr, name))
			}
			ty, err := fn.ReturnTypeForValues(args)
			if err == nil && name == "flatten" {
				ty = tupleTypeAsList(ty)
			}
			return ty, err
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if !b.alive(true) {
				return cty.NilVal, b.err
			}
			args, lerr := convertArgs(args)
			if lerr != nil {
				return cty.NilVal, b.fail(named(lerr, name))
			}
			v, err := fn.Call(args)
			if err != nil {
				return v, err
			}
			if b.err != nil {
				// A function that evaluates expressions (try, can) caught
				// the Budget's error.
				return cty.NilVal, b.err
			}
			if name == "flatten" {
				v = tupleAsList(v)
			}
			if v.IsKnown() && !v.IsNull() {
				if lerr := b.build(name+"()", Size(v, b.maxValue)); lerr != nil {
					return cty.NilVal, lerr
				}
			}
			return v, nil
		},
	})
}

// looseParams are fn's parameters with the dynamic pseudo-type for each
// list or set, so that a tuple passed for one reaches the function
// unconverted, and the function that converts the arguments for them
// with convertArg before fn is called.
func looseParams(fn function.Function) ([]function.Parameter, *function.Parameter, func([]cty.Value) ([]cty.Value, *LimitError)) {
	params := fn.Params()
	lists := make([]bool, len(params))
	loose := make([]function.Parameter, len(params))
	for i, p := range params {
		loose[i] = p
		if isCollection(p.Type) {
			lists[i] = true
			loose[i].Type = cty.DynamicPseudoType
		}
	}
	var varParam *function.Parameter
	varList := false
	if vp := fn.VarParam(); vp != nil {
		c := *vp
		if isCollection(vp.Type) {
			varList = true
			c.Type = cty.DynamicPseudoType
		}
		varParam = &c
	}
	convertArgs := func(args []cty.Value) ([]cty.Value, *LimitError) {
		var out []cty.Value
		for i, a := range args {
			var want cty.Type
			switch {
			case i < len(params) && lists[i]:
				want = params[i].Type
			case i >= len(params) && varList:
				want = fn.VarParam().Type
			default:
				continue
			}
			if n := setLength(a, want); n > MaxSetElements {
				return nil, &LimitError{Kind: Elements, Size: n, Max: MaxSetElements}
			}
			if c, ok := convertArg(a, want); ok {
				if out == nil {
					out = append([]cty.Value(nil), args...)
				}
				out[i] = c
			}
		}
		if out == nil {
			return args, nil
		}
		return out, nil
	}
	return loose, varParam, convertArgs
}

// convertArg is v converted to want, a list or set type, as HCL converts
// the arguments of a function: a tuple by tupleArg. ok is false when v is
// of that type already or does not convert: the function then says why.
func convertArg(v cty.Value, want cty.Type) (_ cty.Value, ok bool) {
	ty := v.Type()
	uv, _ := v.Unmark()
	switch {
	case ty.Equals(want):
		return v, false
	case ty.IsTupleType():
		if c, ok := tupleArg(v, want); ok || !uv.IsKnown() || uv.IsNull() || uv.LengthInt() > slowTuple {
			return c, ok
		}
	}
	c, err := convert.Convert(v, want)
	if err != nil {
		return v, false
	}
	return c, true
}

// isCollection reports whether ty is a list or set type.
func isCollection(ty cty.Type) bool {
	return ty.IsListType() || ty.IsSetType()
}

// tupleArg is v, a tuple, as the list or set want is, as HCL converts
// it: each element converted to want's element type, or, when that is
// the dynamic pseudo-type, to the type the elements' types unify to. cty
// would unify the types of all the elements, in a time that grows with
// the square of the tuple's length; this unifies each distinct type once.
// ok is false when v is not a known tuple, has more than maxTupleTypes
// distinct types, or an element does not convert.
func tupleArg(v cty.Value, want cty.Type) (_ cty.Value, ok bool) {
	uv, marks := v.Unmark()
	if !uv.Type().IsTupleType() || !uv.IsKnown() || uv.IsNull() || uv.LengthInt() == 0 {
		return v, false
	}
	ety := want.ElementType()
	if ety == cty.DynamicPseudoType {
		var types []cty.Type
		for _, t := range uv.Type().TupleElementTypes() {
			if slices.ContainsFunc(types, t.Equals) {
				continue
			}
			if len(types) == maxTupleTypes {
				return v, false
			}
			types = append(types, t)
		}
		ety, _ = convert.Unify(types)
		if ety == cty.NilType || ety == cty.DynamicPseudoType {
			return v, false
		}
	}
	elems := uv.AsValueSlice()
	for i, el := range elems {
		if ety == cty.String {
			if s, ok := intText(el); ok {
				elems[i] = cty.StringVal(s)
				continue
			}
		}
		c, err := convert.Convert(el, ety)
		if err != nil {
			return v, false
		}
		elems[i] = c
	}
	for _, el := range elems[1:] {
		if !el.Type().Equals(elems[0].Type()) {
			return v, false
		}
	}
	if want.IsSetType() {
		return cty.SetVal(elems).WithMarks(marks), true
	}
	return cty.ListVal(elems).WithMarks(marks), true
}

// maxTupleTypes is how many distinct element types tupleArg unifies.
const maxTupleTypes = 64

// slowTuple is the length up to which a tuple tupleArg does not convert
// is converted by cty: beyond it, the function is given the tuple, and
// refuses it.
const slowTuple = 1024

// tupleTypeAsList is the type tupleAsList gives a value of type ty.
func tupleTypeAsList(ty cty.Type) cty.Type {
	if !ty.IsTupleType() {
		return ty
	}
	etys := ty.TupleElementTypes()
	if len(etys) == 0 || etys[0] == cty.DynamicPseudoType {
		return ty
	}
	for _, et := range etys[1:] {
		if !et.Equals(etys[0]) {
			return ty
		}
	}
	return cty.List(etys[0])
}

// MaxSetElements is how many elements a set that a function takes may
// have: cty sorts a set each time it goes through its elements, which a
// function call does several times, and a sort of a long set costs
// seconds.
const MaxSetElements = 1 << 15

// setLength is how many elements v has when want is a set type and v a
// known collection, 0 otherwise.
func setLength(v cty.Value, want cty.Type) int64 {
	uv, _ := v.Unmark()
	if !want.IsSetType() || !uv.IsKnown() || uv.IsNull() || !uv.CanIterateElements() {
		return 0
	}
	return int64(uv.LengthInt())
}

// named is err with What set to name's call.
func named(err *LimitError, name string) *LimitError {
	err.What = name + "()"
	return err
}

// intText is the text cty's conversion gives a whole number that fits in
// an int64, without the 512-bit decimal formatting it goes through (about
// 60 µs a number): ok is false for any other value, which convert.Convert
// then converts.
func intText(v cty.Value) (string, bool) {
	if v.Type() != cty.Number || v.IsMarked() || !v.IsKnown() || v.IsNull() {
		return "", false
	}
	bf := v.AsBigFloat()
	if !bf.IsInt() || (bf.Sign() == 0 && bf.Signbit()) {
		return "", false
	}
	i, acc := bf.Int64()
	if acc != big.Exact {
		return "", false
	}
	return strconv.FormatInt(i, 10), true
}
