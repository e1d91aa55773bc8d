package adapters

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// WalkExpr calls fn for expr and every expression nested in it, for native
// syntax expressions. It always returns nil diagnostics.
func WalkExpr(expr hcl.Expression, fn func(hcl.Expression)) hcl.Diagnostics {
	se, ok := expr.(hclsyntax.Expression)
	if !ok {
		fn(expr)
		return nil
	}
	return hclsyntax.VisitAll(se, func(n hclsyntax.Node) hcl.Diagnostics {
		if e, ok := n.(hclsyntax.Expression); ok {
			fn(e)
		}
		return nil
	})
}
