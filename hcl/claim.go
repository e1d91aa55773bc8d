package hcl

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolhost/toolhost/adapters"
)

// The caps on one claim of a caller's token, as claim() reads it: a token
// is capped by the size of a request's headers already, and these keep
// one claim's value to what an expression needs.
const (
	// MaxClaimBytes is the largest claim, in bytes of JSON.
	MaxClaimBytes = 64 << 10
	// MaxClaimDepth is how deeply a claim's lists and objects may nest.
	MaxClaimDepth = 32
)

// claimParams are claim()'s parameters: the claim's name.
var claimParams = []function.Parameter{{Name: "name", Type: cty.String}}

// claimNowhere is claim() where no call is made: in a param's default, a
// description, the server block. It fails with a message that says where
// it can be used.
var claimNowhere = function.New(&function.Spec{
	Description: "The claim of the caller's verified token named name (tools only).",
	Params:      claimParams,
	Type:        function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.NilVal, &funcError{
			msg:     "claim() reads the caller's token, which only a call has",
			summary: "claim() outside a call",
			detail:  "claim() reads a claim of the caller's token, which only a call has: use it where param can be used (a tool's backend block, result, confirm or ask) or in a prompt's messages, not here.",
		}
	},
})

// claimAtCompile is claim() when a tool's expressions are compiled: a
// value not known until a call, of any type, so that nothing that uses
// it looks constant.
var claimAtCompile = function.New(&function.Spec{
	Description: claimNowhere.Description(),
	Params:      claimParams,
	Type:        function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		return cty.DynamicVal, nil
	},
})

// ClaimFunction is claim() for one call: claim(NAME) is vals[NAME], the
// claims of the caller's token that the tool reads (see ClaimValue). The
// host checks that the token has each of them before the call runs.
func ClaimFunction(vals map[string]cty.Value) function.Function {
	return function.New(&function.Spec{
		Description: claimNowhere.Description(),
		Params:      claimParams,
		Type:        function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			name := args[0].AsString()
			if v, ok := vals[name]; ok {
				return v, nil
			}
			return cty.NilVal, fmt.Errorf("the caller's token has no claim %q", name)
		},
	})
}

// ClaimValue converts v, a claim as JSON decodes it, to the HCL value
// claim() returns: a string, number or bool; a list (a tuple, as
// jsondecode makes) or an object as JSON's. Its error, for a claim past
// MaxClaimBytes or MaxClaimDepth, is a sentence to show the caller. It
// converts directly, without JSON in between: a tool that reads claims
// does so at every call.
func ClaimValue(name string, v any) (cty.Value, error) {
	c := claimConv{left: MaxClaimBytes}
	val, err := c.value(v, 0)
	if err != nil {
		return cty.NilVal, fmt.Errorf("the claim %q of the caller's token %s", name, err)
	}
	return val, nil
}

// claimConv converts a claim, counting its bytes.
type claimConv struct{ left int }

// errClaimSize and errClaimDepth end the sentence of ClaimValue's error.
var (
	errClaimSize  = fmt.Errorf("has more than the %d bytes a tool reads", MaxClaimBytes)
	errClaimDepth = fmt.Errorf("nests deeper than the %d levels a tool reads", MaxClaimDepth)
)

// take counts n bytes of the claim.
func (c *claimConv) take(n int) error {
	if c.left -= n; c.left < 0 {
		return errClaimSize
	}
	return nil
}

// value converts v, at depth levels of nesting.
func (c *claimConv) value(v any, depth int) (cty.Value, error) {
	if depth > MaxClaimDepth {
		return cty.NilVal, errClaimDepth
	}
	if err := c.take(8); err != nil { // a value's own bytes, as JSON about
		return cty.NilVal, err
	}
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case string:
		return cty.StringVal(x), c.take(len(x))
	case bool:
		return cty.BoolVal(x), nil
	case float64:
		return cty.NumberFloatVal(x), nil
	case json.Number:
		n, err := cty.ParseNumberVal(string(x))
		if err != nil {
			return cty.NilVal, fmt.Errorf("is not a number HCL reads: %v", err)
		}
		return n, c.take(len(x))
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal, nil
		}
		elems := make([]cty.Value, len(x))
		for i, e := range x {
			ev, err := c.value(e, depth+1)
			if err != nil {
				return cty.NilVal, err
			}
			elems[i] = ev
		}
		return cty.TupleVal(elems), nil
	case map[string]any:
		if len(x) == 0 {
			return cty.EmptyObjectVal, nil
		}
		attrs := make(map[string]cty.Value, len(x))
		for k, e := range x {
			if err := c.take(len(k)); err != nil {
				return cty.NilVal, err
			}
			ev, err := c.value(e, depth+1)
			if err != nil {
				return cty.NilVal, err
			}
			attrs[k] = ev
		}
		return cty.ObjectVal(attrs), nil
	}
	// Another Go type than JSON decodes to (a verifier's own, []string
	// say): as JSON has it.
	b, err := json.Marshal(v)
	if err != nil {
		return cty.NilVal, fmt.Errorf("is not a JSON value: %v", err)
	}
	if err := c.take(len(b)); err != nil {
		return cty.NilVal, err
	}
	var plain any
	if err := json.Unmarshal(b, &plain); err != nil {
		return cty.NilVal, fmt.Errorf("is not a JSON value: %v", err)
	}
	return c.value(plain, depth)
}

// claimUse is one call of claim() in a block.
type claimUse struct {
	name string
	rng  hcl.Range
}

// blockClaims finds the calls of claim() in block, nested blocks and all,
// and reports a call whose argument is not a literal name: which claims a
// tool reads must be known at load, to refuse a token without them before
// anything runs.
func blockClaims(block *hcl.Block) ([]claimUse, hcl.Diagnostics) {
	body, ok := block.Body.(*hclsyntax.Body)
	if !ok {
		return nil, nil
	}
	var uses []claimUse
	var diags hcl.Diagnostics
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		name, ok := adapters.ClaimCall(n)
		switch {
		case !ok:
		case name == "":
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Claim name not written out",
				Detail:   `claim() takes the name of a claim written out as a quoted string, such as claim("email"), so that the claims a tool reads are known when the config loads and a token without them is refused before anything runs. Write the name as a string literal.`,
				Subject:  n.Range().Ptr(),
			})
		default:
			uses = append(uses, claimUse{name, n.Range()})
		}
		return nil
	})
	return uses, diags
}

// findClaims notes the claims t reads (see blockClaims).
func (t *Tool) findClaims(block *hcl.Block) hcl.Diagnostics {
	uses, diags := blockClaims(block)
	t.claimUses, t.Claims = uses, claimNames(uses)
	return diags
}

// findClaims notes the claims p reads (see blockClaims).
func (p *Prompt) findClaims(block *hcl.Block) hcl.Diagnostics {
	uses, diags := blockClaims(block)
	p.claimUses, p.Claims = uses, claimNames(uses)
	return diags
}

// withCompileClaim is ctx with claim() as it is when expressions are
// compiled (see claimAtCompile), for a prompt, whose messages are
// compiled with the load's functions.
func withCompileClaim(ctx *hcl.EvalContext) *hcl.EvalContext {
	child := ctx.NewChild()
	child.Functions = map[string]function.Function{adapters.ClaimFunc: claimAtCompile}
	child.Variables = ctx.Variables
	return child
}

// claimsInResource refuses claim() in a resource or resource template:
// what it serves is the same for every client (its updates go to every
// subscriber), so it reads no caller's token.
func claimsInResource(block *hcl.Block) hcl.Diagnostics {
	uses, diags := blockClaims(block)
	for _, u := range uses {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "claim() in a resource",
			Detail:   fmt.Sprintf("A %s serves the same content to every client (its updates go to every subscriber), so it does not read the caller's token: claim(%q) is for tools and prompts. Make it a tool, or take the value from the uri.", strings.ReplaceAll(block.Type, "_", " "), u.name),
			Subject:  u.rng.Ptr(),
		})
	}
	return diags
}

// claimNames are the names of uses, sorted, each once.
func claimNames(uses []claimUse) []string {
	if len(uses) == 0 {
		return nil
	}
	names := make([]string, len(uses))
	for i, u := range uses {
		names[i] = u.name
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// mentionsClaim reports whether the text of block in src has "claim" in
// it (true when the block's text cannot be found): only then does
// blockClaims walk its expressions.
func mentionsClaim(src []byte, block *hcl.Block) bool {
	return blockMentions(src, block, "claim")
}

// checkClaimsAuth refuses claim() in a config without an auth block: only
// a verified token has claims, and without one every call of the tool
// would be refused.
func (c *Config) checkClaimsAuth() hcl.Diagnostics {
	if c.Server != nil && c.Server.Auth != nil {
		return nil
	}
	var diags hcl.Diagnostics
	noAuth := func(what, name string, uses []claimUse) {
		for _, u := range uses {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "claim() without auth",
				Detail:   fmt.Sprintf("%s %q reads the claim %q of the caller's token, but the server verifies no tokens, so no call would have one. Add server { auth { ... } }, with the issuer and audience of your authorization server, to verify the callers' tokens; or take the value from an argument instead.", what, name, u.name),
				Subject:  u.rng.Ptr(),
			})
		}
	}
	for _, t := range c.Tools {
		noAuth("Tool", t.Name, t.claimUses)
	}
	for _, p := range c.Prompts {
		noAuth("Prompt", p.Name, p.claimUses)
	}
	return diags
}
