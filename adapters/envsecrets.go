package adapters

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/internal/redact"
)

// EnvCredentialNames returns the names of the environment variables named
// like credentials (see redact.SensitiveName: API_TOKEN, DB_PASSWORD, ...)
// that body reads with env("NAME"), NAME written as a literal, anywhere in
// it. Their values are secrets whatever they are given to: a query
// parameter q, an environment variable TOK or a command's argument, whose
// names say nothing.
func EnvCredentialNames(body hcl.Body) []string {
	syntax, ok := body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var names []string
	hclsyntax.VisitAll(syntax, func(n hclsyntax.Node) hcl.Diagnostics {
		call, ok := n.(*hclsyntax.FunctionCallExpr)
		if !ok || call.Name != "env" || len(call.Args) == 0 {
			return nil
		}
		v, diags := call.Args[0].Value(nil)
		if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
			return nil
		}
		if name := v.AsString(); redact.SensitiveName(redact.EnvSecretName(name)) && !slices.Contains(names, name) {
			names = append(names, name)
		}
		return nil
	})
	return names
}

// EnvCredentials returns the values of the variables names (see
// EnvCredentialNames) as env() reads them in ev, leaving out those that
// are unset or empty.
func EnvCredentials(ev *hcl.EvalContext, names []string) []string {
	if ev == nil || len(names) == 0 {
		return nil
	}
	env, ok := ev.Functions["env"]
	for p := ev.Parent(); !ok && p != nil; p = p.Parent() {
		env, ok = p.Functions["env"]
	}
	if !ok {
		return nil
	}
	var out []string
	for _, name := range names {
		v, err := env.Call([]cty.Value{cty.StringVal(name)})
		if err == nil && v.IsKnown() && !v.IsNull() && v.Type() == cty.String && v.AsString() != "" {
			out = append(out, v.AsString())
		}
	}
	return out
}
