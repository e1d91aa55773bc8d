package adapters

import "github.com/zclconf/go-cty/cty"

// Unmark returns v without its marks, as a backend takes a call's value.
// A primitive value carries its marks on itself, so a shallow Unmark does;
// UnmarkDeep, which walks and rebuilds the value, is for collections and
// structures.
func Unmark(v cty.Value) cty.Value {
	if v.Type().IsPrimitiveType() {
		v, _ = v.Unmark()
		return v
	}
	v, _ = v.UnmarkDeep()
	return v
}
