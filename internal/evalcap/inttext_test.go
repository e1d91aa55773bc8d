package evalcap

import (
	"math"
	"math/big"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// TestIntTextAsConvert: intText gives exactly the text cty's conversion
// to string gives, for the numbers it takes, and declines the others.
func TestIntTextAsConvert(t *testing.T) {
	huge, _ := new(big.Float).SetString("1e30")
	negZero := new(big.Float).Neg(new(big.Float))
	for _, tc := range []struct {
		name string
		v    cty.Value
		ok   bool
	}{
		{"zero", cty.NumberIntVal(0), true},
		{"one", cty.NumberIntVal(1), true},
		{"negative", cty.NumberIntVal(-42), true},
		{"largest int64", cty.NumberIntVal(math.MaxInt64), true},
		{"smallest int64", cty.NumberIntVal(math.MinInt64), true},
		{"from a float", cty.NumberFloatVal(3), true},
		{"a fraction", cty.NumberFloatVal(1.5), false},
		{"beyond int64", cty.NumberVal(huge), false},
		{"negative zero", cty.NumberVal(negZero), false},
		{"marked", cty.NumberIntVal(1).Mark("sensitive"), false},
		{"unknown", cty.UnknownVal(cty.Number), false},
		{"null", cty.NullVal(cty.Number), false},
		{"a string", cty.StringVal("1"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := intText(tc.v)
			if ok != tc.ok {
				t.Fatalf("intText(%#v) ok = %v, want %v", tc.v, ok, tc.ok)
			}
			if !ok {
				return
			}
			want, err := convert.Convert(tc.v, cty.String)
			if err != nil {
				t.Fatal(err)
			}
			if got != want.AsString() {
				t.Errorf("intText = %q, convert.Convert = %q", got, want.AsString())
			}
		})
	}
}
