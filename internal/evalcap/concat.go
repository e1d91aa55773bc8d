package evalcap

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// The rendering of a plain template. A template of text and parameters
// only ("hello ${param.name}") was evaluated by HCL at every call: each
// part's value, its conversion to a string, a set of marks, a buffer, the
// traversal of the variables: a tenth of the server's CPU for a template
// call. Such a template is now joined directly when every parameter it
// names is a known string without marks, which is what HCL then does
// (cty.StringVal of the joined text, normalized as HCL normalizes it);
// anything else (a number to convert, a null, a marked value, another
// variable) is evaluated by HCL as before.

// concatPart is one part of a plain template: text, or the value of
// variable root's attribute attr.
type concatPart struct {
	text       string
	root, attr string // both empty for text
}

// concatParts reads expr as a plain template, nil if it is not one.
func concatParts(expr hcl.Expression) []concatPart {
	te, ok := expr.(*hclsyntax.TemplateExpr)
	if !ok || len(te.Parts) == 0 {
		return nil
	}
	parts := make([]concatPart, 0, len(te.Parts))
	for _, part := range te.Parts {
		switch e := part.(type) {
		case *hclsyntax.LiteralValueExpr:
			v := e.Val
			if !v.IsKnown() || v.IsNull() || v.IsMarked() || v.Type() != cty.String {
				return nil
			}
			parts = append(parts, concatPart{text: v.AsString()})
		case *hclsyntax.ScopeTraversalExpr:
			t := e.Traversal
			if len(t) != 2 {
				return nil
			}
			root, isRoot := t[0].(hcl.TraverseRoot)
			attr, isAttr := t[1].(hcl.TraverseAttr)
			if !isRoot || !isAttr {
				return nil
			}
			parts = append(parts, concatPart{root: root.Name, attr: attr.Name})
		default:
			return nil
		}
	}
	return parts
}

// concat joins parts with the variables of ctx; ok is false when a part
// is not a known string without marks, and HCL is then to evaluate.
func concat(parts []concatPart, ctx *hcl.EvalContext) (_ cty.Value, ok bool) {
	// The strings are found first, so that the text is built in one
	// allocation; a template of a few parts keeps them on the stack.
	var buf [8]string
	strs := buf[:0]
	n := 0
	for _, p := range parts {
		if p.root == "" {
			strs = append(strs, p.text)
			n += len(p.text)
			continue
		}
		obj, found := variable(ctx, p.root)
		if !found || !obj.IsKnown() || obj.IsNull() || obj.IsMarked() || !obj.Type().IsObjectType() || !obj.Type().HasAttribute(p.attr) {
			return cty.NilVal, false
		}
		v := obj.GetAttr(p.attr)
		if !v.IsKnown() || v.IsNull() || v.IsMarked() || v.Type() != cty.String {
			return cty.NilVal, false
		}
		s := v.AsString()
		strs = append(strs, s)
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range strs {
		b.WriteString(s)
	}
	return cty.StringVal(b.String()), true
}

// variable looks name up in ctx and its parents as HCL does.
func variable(ctx *hcl.EvalContext, name string) (cty.Value, bool) {
	for c := ctx; c != nil; c = c.Parent() {
		if c.Variables == nil {
			continue
		}
		if v, ok := c.Variables[name]; ok {
			return v, true
		}
	}
	return cty.NilVal, false
}
