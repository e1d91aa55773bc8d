package hcl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/toolhost/toolhost/internal/suggest"
)

// checkExprRefs reports the variables expr refers to that are not
// root.NAME for a declared name, with a "did you mean" where one is close.
func checkExprRefs(expr hcl.Expression, root string, names []string) hcl.Diagnostics {
	return checkTraversals(expr.Variables(), root, names)
}

// checkBodyRefs is checkExprRefs over every expression in a body, nested
// blocks included.
func checkBodyRefs(body hcl.Body, root string, names []string) hcl.Diagnostics {
	return checkBodyRefsIn(body, []refRoot{{root: root, names: names}})
}

// refRoot is a variable expressions may refer to: root.NAME for the
// declared names, and root alone when whole is set.
type refRoot struct {
	root  string
	names []string
	whole bool
	// fix, when set, is the last sentence of an undeclared name's error,
	// for blocks whose names are not declared by blocks (a resource
	// template's variable); the default says to add the block.
	fix func(name string) string
}

// unknownVariableHint is a sentence for a reference to an unknown variable
// that says what was likely meant, or "": a declared name without its root
// (${city} for ${param.city}), or an environment variable as a shell
// (${API_TOKEN}) or Terraform (env.TOKEN, var.TOKEN) writes it, which env()
// reads.
func unknownVariableHint(tr hcl.Traversal, roots []refRoot) string {
	name := tr.RootName()
	for _, r := range roots {
		if slices.Contains(r.names, name) {
			return fmt.Sprintf("To use the %s %q, write %s.%s. ", refWhat[r.root], name, r.root, name)
		}
	}
	if (name == "env" || name == "var") && len(tr) >= 2 {
		if step, ok := tr[1].(hcl.TraverseAttr); ok {
			return fmt.Sprintf("To read the environment variable %s, write env(%q). ", step.Name, step.Name)
		}
	}
	if envLikeName(name) {
		return fmt.Sprintf("To read the environment variable %s, write env(%q). ", name, name)
	}
	if len(tr) == 1 {
		// text = Hello: a word without quotes is a variable to HCL.
		return fmt.Sprintf("If %s is meant as text, put it in quotes: %q. ", name, name)
	}
	return ""
}

// envLikeName reports whether name is written as environment variables
// are: upper-case letters, digits and '_', with a letter.
func envLikeName(name string) bool {
	letter := false
	for _, c := range name {
		switch {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9', c == '_':
		default:
			return false
		}
	}
	return letter
}

// refWhat names what a root's attributes are, for messages.
var refWhat = map[string]string{"param": "parameter", "arg": "argument", "answer": "field"}

// refBlock is the block that declares a root's names.
var refBlock = map[string]string{"param": "param", "arg": "arg", "answer": "field"}

func checkTraversals(travs []hcl.Traversal, root string, names []string) hcl.Diagnostics {
	return checkRefs(travs, []refRoot{{root: root, names: names}})
}

// checkBodyRefsIn is checkBodyRefs with several variables.
func checkBodyRefsIn(body hcl.Body, roots []refRoot) hcl.Diagnostics {
	var travs []hcl.Traversal
	var walk func(b *hclsyntax.Body)
	walk = func(b *hclsyntax.Body) {
		for _, a := range b.Attributes {
			travs = append(travs, a.Expr.Variables()...)
		}
		for _, nb := range b.Blocks {
			// A tool's own block written inside a backend block (param
			// in template { }) is reported there as not expected; what it
			// holds (type = string) is not the backend's to check.
			if slices.ContainsFunc(toolCommonBlocks, func(s hcl.BlockHeaderSchema) bool { return s.Type == nb.Type }) {
				continue
			}
			walk(nb.Body)
		}
	}
	if sb, ok := body.(*hclsyntax.Body); ok {
		walk(sb)
	}
	return checkRefs(travs, roots)
}

// checkRefs reports references to variables that are not among roots, and
// to attributes of a root that are not declared.
func checkRefs(travs []hcl.Traversal, roots []refRoot) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var rootNames, forms []string
	for _, r := range roots {
		rootNames = append(rootNames, r.root)
		forms = append(forms, fmt.Sprintf("%s.NAME (NAME a declared %s)", r.root, refWhat[r.root]))
	}
	for _, tr := range travs {
		var scope *refRoot
		for i := range roots {
			if roots[i].root == tr.RootName() {
				scope = &roots[i]
			}
		}
		if scope == nil {
			detail := fmt.Sprintf("There is no variable named %q here.", tr.RootName()) + suggest.Hint(tr.RootName(), rootNames) + " "
			detail += unknownVariableHint(tr, roots)
			if len(roots) == 1 {
				detail += fmt.Sprintf("Only %s.NAME is available, where NAME is a declared %s.", roots[0].root, refWhat[roots[0].root])
			} else {
				detail += fmt.Sprintf("Only %s are available.", strings.Join(forms, ", and "))
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unknown variable",
				Detail:   detail,
				Subject:  tr.SourceRange().Ptr(),
			})
			continue
		}
		root, names, what := scope.root, scope.names, refWhat[scope.root]
		if len(tr) < 2 && scope.whole {
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
		if name == "" || slices.Contains(names, name) {
			continue
		}
		detail := fmt.Sprintf("The %s %q is not declared in this block.", what, name) + suggest.Hint(name, names) + " "
		if len(names) > 0 {
			detail += fmt.Sprintf("Declared: %s. ", strings.Join(names, ", "))
		}
		if scope.fix != nil {
			detail += scope.fix(name)
		} else {
			detail += fmt.Sprintf("Add %s %q block, or correct the name.", withArticle(refBlock[root]), name)
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Undeclared %s", what),
			Detail:   detail,
			Subject:  tr.SourceRange().Ptr(),
		})
	}
	return diags
}

// withoutRepeats drops the errors of diags whose place lies inside the
// place of an error of reported: the same mistake, found again by a later
// check (a backend that looks at the parameters it is given, say).
func withoutRepeats(diags, reported hcl.Diagnostics) hcl.Diagnostics {
	if !reported.HasErrors() {
		return diags
	}
	var out hcl.Diagnostics
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Subject != nil && insideAny(*d.Subject, reported) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// insideAny reports whether r lies within the subject of an error of diags.
func insideAny(r hcl.Range, diags hcl.Diagnostics) bool {
	for _, d := range diags {
		if d.Severity != hcl.DiagError || d.Subject == nil {
			continue
		}
		s := *d.Subject
		if s.Filename == r.Filename && s.Start.Byte <= r.Start.Byte && r.End.Byte <= s.End.Byte {
			return true
		}
	}
	return false
}

// referencedNames lists the names NAME of the references root.NAME in a
// body, nested blocks included, each once.
func referencedNames(body hcl.Body, root string) []string {
	var names []string
	var walk func(b *hclsyntax.Body)
	walk = func(b *hclsyntax.Body) {
		for _, a := range b.Attributes {
			for _, tr := range a.Expr.Variables() {
				if tr.RootName() != root || len(tr) < 2 {
					continue
				}
				if step, ok := tr[1].(hcl.TraverseAttr); ok && !slices.Contains(names, step.Name) {
					names = append(names, step.Name)
				}
			}
		}
		for _, nb := range b.Blocks {
			walk(nb.Body)
		}
	}
	if sb, ok := body.(*hclsyntax.Body); ok {
		walk(sb)
	}
	return names
}
