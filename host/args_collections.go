package host

import (
	"errors"
	"fmt"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// oneType converts the elements of a list, set or map to one type, which
// cty's collections require: a param of type list(any) may be given
// [1, "x"], whose items become strings, as HCL's list(any) makes them;
// elements that no type holds ([1, {}]) are refused.
func oneType(elems []cty.Value) ([]cty.Value, error) {
	// A null given for an item of type any has no type yet: it takes the
	// others'. cty's Unify compares every type with every other, so it is
	// given each distinct type once: 60,000 items of one type are one
	// comparison, not 1.8 billion.
	var types []cty.Type
	which := make([]int, len(elems)) // index into types, or -1 for an untyped null
	for i, e := range elems {
		if e.IsNull() && e.Type() == cty.DynamicPseudoType {
			which[i] = -1
			continue
		}
		which[i] = distinctType(&types, e.Type())
		if which[i] < 0 {
			return nil, fmt.Errorf("has items of more than %d different types; give items of one type", maxItemTypes)
		}
	}
	if len(types) == 0 {
		return elems, nil
	}
	ty, convs := convert.Unify(types)
	if ty == cty.NilType {
		return nil, errors.New("has items of types that differ beyond conversion; give items of one type")
	}
	out := make([]cty.Value, len(elems))
	for i, e := range elems {
		k := which[i]
		switch {
		case k < 0:
			out[i] = cty.NullVal(ty)
		case convs[k] == nil:
			out[i] = e
		default:
			v, err := convs[k](e)
			if err != nil {
				return nil, fmt.Errorf("has items of types that differ beyond conversion (%s); give items of one type", err)
			}
			out[i] = v
		}
	}
	return out, nil
}

// maxItemTypes caps how many different types the items of one list, set
// or map argument may have, which bounds the comparisons oneType makes.
const maxItemTypes = 64

// distinctType returns the index of ty in *types, appending it if no
// type there equals it; -1 when that would pass maxItemTypes.
func distinctType(types *[]cty.Type, ty cty.Type) int {
	for k, have := range *types {
		if have.Equals(ty) {
			return k
		}
	}
	if len(*types) == maxItemTypes {
		return -1
	}
	*types = append(*types, ty)
	return len(*types) - 1
}
