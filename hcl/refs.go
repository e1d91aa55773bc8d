package hcl

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// checkExprRefs reports the variables expr refers to that are not
// root.NAME for a declared name, with a "did you mean" where one is close.
func checkExprRefs(expr hcl.Expression, root string, names []string) hcl.Diagnostics {
	return checkTraversals(expr.Variables(), root, names)
}

// checkBodyRefs is checkExprRefs over every expression in a body, nested
// blocks included.
func checkBodyRefs(body hcl.Body, root string, names []string) hcl.Diagnostics {
	var travs []hcl.Traversal
	var walk func(b *hclsyntax.Body)
	walk = func(b *hclsyntax.Body) {
		for _, a := range b.Attributes {
			travs = append(travs, a.Expr.Variables()...)
		}
		for _, nb := range b.Blocks {
			walk(nb.Body)
		}
	}
	if sb, ok := body.(*hclsyntax.Body); ok {
		walk(sb)
	}
	return checkTraversals(travs, root, names)
}

func checkTraversals(travs []hcl.Traversal, root string, names []string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	declared := make(map[string]bool, len(names))
	for _, n := range names {
		declared[n] = true
	}
	what := map[string]string{"param": "parameter", "arg": "argument"}[root]
	for _, tr := range travs {
		if tr.RootName() != root {
			detail := fmt.Sprintf("There is no variable named %q here. ", tr.RootName())
			if s := suggest(tr.RootName(), []string{root}); s != "" {
				detail += fmt.Sprintf("Did you mean %q? ", s)
			}
			detail += fmt.Sprintf("Only %s.NAME is available, where NAME is a declared %s.", root, what)
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unknown variable",
				Detail:   detail,
				Subject:  tr.SourceRange().Ptr(),
			})
			continue
		}
		if len(tr) < 2 {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  fmt.Sprintf("Incomplete reference to %s", root),
				Detail:   fmt.Sprintf("Refer to one %s, as in %s.NAME.", what, root),
				Subject:  tr.SourceRange().Ptr(),
			})
			continue
		}
		var name string
		switch step := tr[1].(type) {
		case hcl.TraverseAttr:
			name = step.Name
		case hcl.TraverseIndex:
			if step.Key.Type().FriendlyName() == "string" {
				name = step.Key.AsString()
			}
		}
		if name == "" || declared[name] {
			continue
		}
		detail := fmt.Sprintf("The %s %q is not declared in this block. ", what, name)
		if s := suggest(name, names); s != "" {
			detail += fmt.Sprintf("Did you mean %q? ", s)
		}
		if len(names) > 0 {
			detail += fmt.Sprintf("Declared: %s. ", strings.Join(names, ", "))
		}
		detail += fmt.Sprintf("Add a %s %q block, or correct the name.", map[string]string{"param": "param", "arg": "arg"}[root], name)
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Undeclared %s", what),
			Detail:   detail,
			Subject:  tr.SourceRange().Ptr(),
		})
	}
	return diags
}
