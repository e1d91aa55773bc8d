package attr

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Bytes reads v, the constant value of a, as a size in bytes from 1 to max
// (maxText says max in MiB, as "64 MiB"), as max_output and max_response
// are written. A size written as a string with a unit ("10MB") is told
// the number to write instead.
func Bytes(a *hcl.Attribute, v cty.Value, max int, maxText string) (int, hcl.Diagnostics) {
	invalid := func(detail string) (int, hcl.Diagnostics) {
		return 0, hcl.Diagnostics{{
			Severity:   hcl.DiagError,
			Summary:    "Invalid " + a.Name,
			Detail:     detail,
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		}}
	}
	nv, err := convert.Convert(v, cty.Number)
	if err != nil || nv.IsNull() {
		if hint := SizeHint(a.Name, v); hint != "" {
			return invalid(fmt.Sprintf("The %s argument must be a number of bytes, and this is %s.%s", a.Name, TypeName(v.Type()), hint))
		}
		return invalid(fmt.Sprintf("The %s argument must be a number of bytes, and this is %s. "+
			"Write a whole number, such as %s = 1048576 for 1 MiB.", a.Name, TypeName(v.Type()), a.Name))
	}
	bf := nv.AsBigFloat()
	if !bf.IsInt() || bf.Sign() <= 0 || bf.Cmp(big.NewFloat(float64(max))) > 0 {
		return invalid(fmt.Sprintf("The %s argument is %s, and it must be a whole number of bytes from 1 to %d (%s). "+
			"Write a number in that range, such as %s = 1048576 for 1 MiB.", a.Name, bf.Text('f', -1), max, maxText, a.Name))
	}
	n, _ := bf.Int64()
	return int(n), nil
}

// SizeHint is what to write for a size given as a string with a unit, as
// max_response = "10MB" or max_output = "1 MiB": the number of bytes
// (units are taken as binary, as toolhost's own defaults are), in a
// sentence with a leading space, or "" when v is not such a string. name
// is the argument's name.
func SizeHint(name string, v cty.Value) string {
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return ""
	}
	s := strings.ToLower(strings.TrimSpace(v.AsString()))
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return ""
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return ""
	}
	var mult float64
	unit := strings.TrimSpace(s[i:])
	switch unit {
	case "b", "bytes":
		mult = 1
	case "k", "kb", "kib":
		mult, unit = 1<<10, "KiB"
	case "m", "mb", "mib":
		mult, unit = 1<<20, "MiB"
	case "g", "gb", "gib":
		mult, unit = 1<<30, "GiB"
	default:
		return ""
	}
	bytes := n * mult
	if bytes != float64(int64(bytes)) || bytes < 1 {
		return ""
	}
	if mult == 1 {
		return fmt.Sprintf(" Write the number without quotes: %s = %d.", name, int64(bytes))
	}
	return fmt.Sprintf(" For %s %s, write %s = %d, without quotes.", strconv.FormatFloat(n, 'f', -1, 64), unit, name, int64(bytes))
}
