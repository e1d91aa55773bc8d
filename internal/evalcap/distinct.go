package evalcap

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// DistinctFunc is distinct(LIST): the elements of the list without
// repeats, in the order they first appear, as cty's, in a time that grows
// with the list's length: cty's compares each element with each one kept
// before it. Elements are grouped by their hash, and compared with Equals
// only within a group.
var DistinctFunc = function.New(&function.Spec{
	Description: stdlib.DistinctFunc.Description(),
	Params:      stdlib.DistinctFunc.Params(),
	Type: func(args []cty.Value) (cty.Type, error) {
		return args[0].Type(), nil
	},
	RefineResult: func(rb *cty.RefinementBuilder) *cty.RefinementBuilder {
		return rb.NotNull()
	},
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		list := args[0]
		if !list.IsWhollyKnown() {
			return cty.UnknownVal(retType), nil
		}
		var kept []cty.Value
		groups := make(map[int][]cty.Value)
		for it := list.ElementIterator(); it.Next(); {
			_, v := it.Element()
			h := distinctHash(v)
			dup := false
			for _, k := range groups[h] {
				eq, err := stdlib.Equal(k, v)
				if err != nil {
					return cty.NilVal, err
				}
				if eq.True() {
					dup = true
					break
				}
			}
			if !dup {
				groups[h] = append(groups[h], v)
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			return cty.ListValEmpty(retType.ElementType()), nil
		}
		return cty.ListVal(kept), nil
	},
})

// distinctHash is v's hash, which is the same for two values Equals finds
// equal (cty's hash of a number is its text to ten digits), but for a zero
// and a negative zero, which a number alone is given one hash for.
func distinctHash(v cty.Value) int {
	if !v.IsNull() && v.Type() == cty.Number && v.AsBigFloat().Sign() == 0 {
		return 0
	}
	return v.Hash()
}
