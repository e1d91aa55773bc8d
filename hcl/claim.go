package hcl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/evalcap"
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
// claim() returns: as jsondecode would give the claim's JSON (a list
// such as groups is a list). Its error, for a claim past MaxClaimBytes or
// MaxClaimDepth, is a sentence to show the caller.
func ClaimValue(name string, v any) (cty.Value, error) {
	c := claimSize{left: MaxClaimBytes}
	err := c.check(v, 0)
	if errors.Is(err, errClaimType) {
		// Another Go type than JSON decodes to (a verifier's own,
		// []string say): as JSON has it.
		v, err = asJSON(v)
		if err == nil {
			c = claimSize{left: MaxClaimBytes}
			err = c.check(v, 0)
		}
	}
	var val cty.Value
	if err == nil {
		val, err = evalcap.JSONValue(v)
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("the claim %q of the caller's token %s", name, err)
	}
	return val, nil
}

// The ends of the sentences of ClaimValue's errors.
var (
	errClaimSize  = fmt.Errorf("has more than the %d bytes a tool reads", MaxClaimBytes)
	errClaimDepth = fmt.Errorf("nests deeper than the %d levels a tool reads", MaxClaimDepth)
	errClaimType  = errors.New("is not a JSON value")
)

// claimSize counts the bytes of a claim, about as JSON has them, before
// it is converted.
type claimSize struct{ left int }

// take counts n bytes.
func (c *claimSize) take(n int) error {
	if c.left -= n; c.left < 0 {
		return errClaimSize
	}
	return nil
}

// check counts v, at depth levels of nesting; errClaimType for what JSON
// does not decode to.
func (c *claimSize) check(v any, depth int) error {
	if depth > MaxClaimDepth {
		return errClaimDepth
	}
	if err := c.take(8); err != nil { // the value's own bytes, about
		return err
	}
	switch x := v.(type) {
	case nil, bool, float64:
	case string:
		return c.take(len(x))
	case json.Number:
		return c.take(len(x))
	case []any:
		for _, e := range x {
			if err := c.check(e, depth+1); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range x {
			if err := c.take(len(k)); err != nil {
				return err
			}
			if err := c.check(e, depth+1); err != nil {
				return err
			}
		}
	default:
		return errClaimType
	}
	return nil
}

// asJSON is v as encoding/json decodes its JSON, with UseNumber.
func asJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errClaimType, err)
	}
	if len(b) > MaxClaimBytes {
		return nil, errClaimSize
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var plain any
	if err := dec.Decode(&plain); err != nil {
		return nil, fmt.Errorf("%w: %v", errClaimType, err)
	}
	return plain, nil
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
