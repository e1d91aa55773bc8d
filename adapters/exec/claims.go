package exec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolhost/toolhost/adapters"
)

// A claim of the caller's token (claim("email")) is what the caller
// chooses, as an answer of the ask form is: the script checks treat one
// as an answer, listed among a scriptArg's answers as claimRef(name).

// claimRef is the name a claim is listed under among the answers.
func claimRef(name string) string {
	return adapters.ClaimFunc + "(" + strconv.Quote(name) + ")"
}

// claimOfRef is the claim an answers entry names, and whether it names one.
func claimOfRef(ref string) (string, bool) {
	rest, ok := strings.CutPrefix(ref, adapters.ClaimFunc+"(")
	if !ok {
		return "", false
	}
	name, err := strconv.Unquote(strings.TrimSuffix(rest, ")"))
	return name, err == nil
}

// claimRefs lists the claims expr reads, as claimRef names them.
func claimRefs(expr hcl.Expression) []string {
	names := adapters.ClaimRefs(expr)
	for i, n := range names {
		names[i] = claimRef(n)
	}
	return names
}

// answerWhat names the answer or claim ref for a message.
func answerWhat(ref string) string {
	if name, ok := claimOfRef(ref); ok {
		return fmt.Sprintf("the claim %q of the caller's token", name)
	}
	return fmt.Sprintf("the ask form's answer %q", ref)
}

// claimRange returns the range of n when it is the call of claim() that
// ref names.
func claimRange(n hclsyntax.Node, ref string) (hcl.Range, bool) {
	want, ok := claimOfRef(ref)
	if !ok {
		return hcl.Range{}, false
	}
	if name, isClaim := adapters.ClaimCall(n); isClaim && name == want {
		return n.Range(), true
	}
	return hcl.Range{}, false
}

// withMarkedClaims is ctx with claim() giving an unknown value marked as
// the claim's (see markedEval), so that the script checks see what is
// made of it; ctx itself when the tool's expressions cannot call it.
func withMarkedClaims(ctx *hcl.EvalContext) *hcl.EvalContext {
	if _, ok := ctx.Functions[adapters.ClaimFunc]; !ok {
		return ctx
	}
	child := ctx.NewChild()
	child.Functions = map[string]function.Function{adapters.ClaimFunc: function.New(&function.Spec{
		Params: []function.Parameter{{Name: "name", Type: cty.String}},
		Type:   function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.DynamicVal.Mark(refMark{"answer", claimRef(args[0].AsString())}), nil
		},
	})}
	return child
}

// CheckClaim refuses a claim of the caller's token that has a string
// starting with "-", as an answer is refused (see CheckAnswer): where
// the command puts it, it could pass for an option.
func (e *Exec) CheckClaim(name string, value cty.Value) error {
	var bad bool
	_ = cty.Walk(value, func(_ cty.Path, v cty.Value) (bool, error) {
		if v.IsKnown() && !v.IsNull() && v.Type() == cty.String && strings.HasPrefix(v.AsString(), "-") {
			bad = true
		}
		return !bad, nil
	})
	if bad {
		return fmt.Errorf("the claim %q of the caller's token has a value that starts with \"-\", which the command would read as an option; the call is refused before anything runs", name)
	}
	return nil
}

var _ adapters.ClaimChecker = (*Exec)(nil)
