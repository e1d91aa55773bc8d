package evalcap

import (
	"fmt"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// TestDistinctAsCty: DistinctFunc gives what cty's distinct gives, for
// lists of each type, with repeats, nulls, zeros and numbers written
// differently.
func TestDistinctAsCty(t *testing.T) {
	s, n := cty.StringVal, cty.NumberFloatVal
	obj := func(a string, b float64) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"a": s(a), "b": n(b)})
	}
	many := make([]cty.Value, 3000)
	for i := range many {
		many[i] = s(fmt.Sprint(i % 1000))
	}
	cases := []struct {
		name string
		list cty.Value
	}{
		{"strings", cty.ListVal([]cty.Value{s("b"), s("a"), s("b"), s(""), s("a"), s("")})},
		{"numbers", cty.ListVal([]cty.Value{n(1), n(1.0), n(2.5), n(0), n(-0.0), cty.NumberIntVal(1), n(2.5)})},
		{"nulls", cty.ListVal([]cty.Value{cty.NullVal(cty.String), s("x"), cty.NullVal(cty.String)})},
		{"bools", cty.ListVal([]cty.Value{cty.True, cty.False, cty.True})},
		{"objects", cty.ListVal([]cty.Value{obj("x", 1), obj("y", 1), obj("x", 1), obj("x", 2)})},
		{"lists", cty.ListVal([]cty.Value{cty.ListVal([]cty.Value{s("a")}), cty.ListValEmpty(cty.String), cty.ListVal([]cty.Value{s("a")})})},
		{"sets", cty.ListVal([]cty.Value{cty.SetVal([]cty.Value{s("a"), s("b")}), cty.SetVal([]cty.Value{s("b"), s("a")})})},
		{"empty", cty.ListValEmpty(cty.String)},
		{"unknown", cty.ListVal([]cty.Value{s("a"), cty.UnknownVal(cty.String)})},
		{"many", cty.ListVal(many)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, werr := stdlib.DistinctFunc.Call([]cty.Value{tc.list})
			got, gerr := DistinctFunc.Call([]cty.Value{tc.list})
			if (werr != nil) != (gerr != nil) {
				t.Fatalf("error %v, cty's %v", gerr, werr)
			}
			if !got.RawEquals(want) {
				t.Errorf("distinct = %#v, cty's %#v", got, want)
			}
		})
	}
}
