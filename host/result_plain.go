package host

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/evalcap"
)

// resultPlain reports whether every expression of the result block r only
// puts values and text together (evalcap.Plain: no function call, no for
// expression), as the paths of a block of fields usually are ("id",
// "${param.kind}.name"). Evaluating such expressions needs no Budget,
// whose table of watched functions, built for each call, cost more than
// the rest of mapping a 2 KB answer.
func resultPlain(r *thcl.Result) bool {
	for _, f := range r.Fields {
		if _, ok := literalPath(f.Path); !ok && !evalcap.Plain(f.Path) {
			return false
		}
	}
	for _, c := range r.Content {
		for _, e := range []hcl.Expression{c.Text, c.Path, c.Data, c.URI} {
			if e != nil && !evalcap.Plain(e) {
				return false
			}
		}
	}
	return true
}

// literalPath returns the text of a path written as a plain string
// ("items.#.sku"), which needs no evaluation; ok is false for any other
// expression.
func literalPath(expr hcl.Expression) (string, bool) {
	var lit *hclsyntax.LiteralValueExpr
	switch e := expr.(type) {
	case *hclsyntax.TemplateExpr:
		if len(e.Parts) != 1 {
			return "", false
		}
		lit, _ = e.Parts[0].(*hclsyntax.LiteralValueExpr)
	case *hclsyntax.LiteralValueExpr:
		lit = e
	}
	if lit == nil || lit.Val.Type() != cty.String || lit.Val.IsNull() || lit.Val.IsMarked() {
		return "", false
	}
	return lit.Val.AsString(), true
}
