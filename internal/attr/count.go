package attr

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Count reads a whole number from 1 to max, such as max_rows or
// max_open_conns, from v, the value of a (a number: see Constant); def is
// the default the message names.
func Count(a *hcl.Attribute, v cty.Value, max, def int) (int, hcl.Diagnostics) {
	f := v.AsBigFloat()
	n, acc := f.Int64()
	if !f.IsInt() || acc != big.Exact || n < 1 || n > int64(max) {
		return 0, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid " + a.Name,
			Detail:   fmt.Sprintf("%s is a whole number from 1 to %d; %s is not. The default is %d.", a.Name, max, f.Text('g', 10), def),
			Subject:  a.Expr.Range().Ptr(),
		}}
	}
	return int(n), nil
}
