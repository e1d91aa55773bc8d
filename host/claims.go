package host

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	ident "github.com/toolhost/toolhost/internal/identity"
)

// callEval is the evaluation context of a call of t: params as "param",
// and the functions of the language. A tool that reads claims of the
// caller's token (t.Claims) gets claim() bound to them, in a child of
// the registry's functions, so that a tool that reads none pays nothing
// for it. refusal, when not nil, is the answer of a call whose caller
// cannot give the claims: nothing runs.
func (r *Registry) callEval(ctx context.Context, t *thcl.Tool, params cty.Value) (eval *hcl.EvalContext, refusal error) {
	return r.claimEval(ctx, "tool", t.Name, t.Claims, t.Backend, "param", params)
}

// claimEval is the evaluation context of a call of the tool or prompt
// (what) name, which reads claims of the caller's token: the variable
// root is v (param, or a prompt's arg), and claim() is bound to the
// claims (see callEval).
func (r *Registry) claimEval(ctx context.Context, what, name string, claims []string, backend adapters.Backend, root string, v cty.Value) (*hcl.EvalContext, error) {
	if len(claims) == 0 {
		return &hcl.EvalContext{Functions: r.functions.Functions, Variables: map[string]cty.Value{root: v}}, nil
	}
	vals, err := claimValues(ident.FromContext(ctx), what, name, claims, backend)
	if err != nil {
		return nil, err
	}
	eval := r.functions.NewChild()
	eval.Functions = map[string]function.Function{adapters.ClaimFunc: thcl.ClaimFunction(vals)}
	eval.Variables = map[string]cty.Value{root: v}
	return eval, nil
}

// exampleEval is callEval for an example of t whose caller's token has
// the claims of the example (a JSON object).
func (r *Registry) exampleEval(ctx context.Context, t *thcl.Tool, claims json.RawMessage, params cty.Value) (*hcl.EvalContext, error) {
	if len(t.Claims) > 0 {
		c := &ident.Caller{}
		if err := json.Unmarshal(claims, &c.Claims); err != nil {
			return nil, fmt.Errorf("the claims cannot be read: %v", err)
		}
		ctx = ident.NewContext(ctx, c)
	}
	return r.callEval(ctx, t, params)
}

// claimValues reads the claims names of caller's token for a call of the
// tool (what) name, as claim() gives them; its error is the refusal of a
// call without a token, or whose token lacks one of them or has one past
// the caps of thcl.ClaimValue. A backend that is an adapters.ClaimChecker
// refuses the values it would refuse of a parameter.
func claimValues(caller *ident.Caller, what, name string, names []string, backend adapters.Backend) (map[string]cty.Value, error) {
	if caller == nil {
		return nil, fmt.Errorf("the %s %q reads the claim %q of the caller's token (claim() in its config), and this call comes with no token: "+
			"it can be called only over HTTP, with a token the server verifies (over stdio, or through the bridge, the local user has none)", what, name, names[0])
	}
	checker, _ := backend.(adapters.ClaimChecker)
	vals := make(map[string]cty.Value, len(names))
	for _, n := range names {
		raw, ok := caller.Claim(n)
		if !ok {
			return nil, fmt.Errorf("the caller's token has no claim %q, which the %s %q reads (claim(%q) in its config), so the call is refused before anything runs; "+
				"the authorization server must put the claim in the tokens it issues for this server", n, what, name, n)
		}
		v, err := thcl.ClaimValue(n, raw)
		if err != nil {
			return nil, fmt.Errorf("%s; the call is refused before anything runs", err)
		}
		if checker != nil {
			if err := checker.CheckClaim(n, v); err != nil {
				return nil, err
			}
		}
		vals[n] = v
	}
	return vals, nil
}
