package evalcap

import (
	"math"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// A number no 64-bit float holds (a huge exponent, or an integer of very
// many digits) takes seconds and gigabytes to write out as text, which a
// template, format or jsonencode does: tonumber and parseint refuse to
// make one, as arguments and jsondecode never do.

// ToNumberFunc is tonumber(VALUE), refusing a number no 64-bit float
// holds, and a text that is too long or too large a number to be one
// before it parses it (cty takes seconds to parse a huge exponent or a
// long string of digits).
var ToNumberFunc = numberInRange("tonumber", stdlib.MakeToFunc(cty.Number), numberTextTooLarge)

// maxNumberText is the longest text tonumber parses: a float64 written
// out in full has at most 767 significant digits.
const maxNumberText = 1024

// numberTextTooLarge returns an error when tonumber's argument is a text
// too long to be a number a 64-bit float holds, or whose exponent is too
// large for one.
func numberTextTooLarge(args []cty.Value) error {
	if !args[0].IsKnown() || args[0].IsNull() || args[0].Type() != cty.String {
		return nil
	}
	s := strings.TrimSpace(args[0].AsString())
	if len(s) > maxNumberText {
		return function.NewArgErrorf(0, "tonumber() would parse a number of %d characters, more than the %d a 64-bit number is written in", len(s), maxNumberText)
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp := strings.TrimLeft(s[i+1:], "+-")
		if len(strings.TrimLeft(exp, "0")) > 4 {
			return function.NewArgErrorf(0, "tonumber() would parse %s, beyond what a 64-bit number holds (1.8e308)", shortNumber(s))
		}
	}
	return nil
}

// ParseIntFunc is parseint(STR, BASE), refusing a number no 64-bit float
// holds before it parses it.
var ParseIntFunc = numberInRange("parseint", stdlib.ParseIntFunc, parseIntTooLong)

// parseIntTooLong returns an error when the digits of parseint's string
// are too many for the result to be in range, whatever they are.
func parseIntTooLong(args []cty.Value) error {
	if !args[0].IsKnown() || args[0].IsNull() || args[0].Type() != cty.String || !args[1].IsKnown() || args[1].IsNull() {
		return nil
	}
	digits := strings.TrimLeft(args[0].AsString(), "+-")
	base, _ := args[1].AsBigFloat().Float64()
	if base < 2 || len(digits) < 64 {
		return nil
	}
	// A number of n digits in base b is at least b^(n-1), unless it
	// starts with zeros.
	digits = strings.TrimLeft(digits, "0")
	if float64(len(digits)-1)*math.Log10(base) > 309 {
		return function.NewArgErrorf(0, "parseint() would make a number of %d digits in base %g, beyond what a 64-bit number holds (1.8e308)", len(digits), base)
	}
	return nil
}

// numberInRange is fn, refusing a result no 64-bit float holds; before,
// when not nil, refuses arguments before fn runs.
func numberInRange(name string, fn function.Function, before func([]cty.Value) error) function.Function {
	return function.New(&function.Spec{
		Description: fn.Description(),
		Params:      fn.Params(),
		VarParam:    fn.VarParam(),
		Type:        fn.ReturnTypeForValues,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if before != nil {
				if err := before(args); err != nil {
					return cty.NilVal, err
				}
			}
			v, err := fn.Call(args)
			if err != nil || !v.IsKnown() || v.IsNull() || v.Type() != cty.Number {
				return v, err
			}
			if uv, _ := v.Unmark(); !inFloat64Range(uv.AsBigFloat()) {
				return cty.NilVal, function.NewArgErrorf(0, "%s() would make %s, beyond what a 64-bit number holds (1.8e308)", name, shortNumber(uv.AsBigFloat().Text('g', 6)))
			}
			return v, nil
		},
	})
}

// shortNumber is a number's text, shortened for a message.
func shortNumber(s string) string {
	if len(s) > 40 {
		return s[:20] + "..." + s[len(s)-10:]
	}
	return s
}
