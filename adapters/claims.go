package adapters

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// ClaimFunc is the name of the function that reads a claim of the
// caller's verified token: claim("email"). Its value comes from the
// caller, not the model, so backends treat it as they treat a parameter:
// escaped where it lands in a URL, never part of a script's text.
const ClaimFunc = "claim"

// ClaimCall returns the claim n reads when n is a call of claim() with a
// literal string argument, and whether it is a call of claim() at all;
// name is "" for a call whose argument is not a literal string (which
// the config's load refuses).
func ClaimCall(n hclsyntax.Node) (name string, isClaim bool) {
	call, ok := n.(*hclsyntax.FunctionCallExpr)
	if !ok || call.Name != ClaimFunc {
		return "", false
	}
	if len(call.Args) != 1 || call.ExpandFinal {
		return "", true
	}
	var v cty.Value
	switch a := call.Args[0].(type) {
	case *hclsyntax.TemplateExpr:
		if !a.IsStringLiteral() {
			return "", true
		}
		v, _ = a.Value(nil)
	case *hclsyntax.LiteralValueExpr:
		v = a.Val
	default:
		return "", true
	}
	if v.Type() != cty.String || v.IsNull() || !v.IsKnown() || v.AsString() == "" {
		return "", true
	}
	return v.AsString(), true
}

// ClaimRefs lists the claims expr reads with claim("NAME"), in order,
// each once; nil when it reads none. A call whose argument is not a
// literal is listed as "".
func ClaimRefs(expr hcl.Expression) []string {
	sx, ok := expr.(hclsyntax.Expression)
	if !ok {
		return nil
	}
	var names []string
	_ = hclsyntax.VisitAll(sx, func(n hclsyntax.Node) hcl.Diagnostics {
		if name, ok := ClaimCall(n); ok {
			for _, have := range names {
				if have == name {
					return nil
				}
			}
			names = append(names, name)
		}
		return nil
	})
	return names
}

// UsesClaims reports whether expr calls claim().
func UsesClaims(expr hcl.Expression) bool {
	return len(ClaimRefs(expr)) > 0
}

// ClaimChecker is a Backend that refuses some values of the claims of a
// caller's token, as it refuses arguments (exec refuses one that would
// pass for an option). CheckClaim returns the refusal's message for the
// claim name, as claim() gives it, or nil.
type ClaimChecker interface {
	CheckClaim(name string, value cty.Value) error
}
