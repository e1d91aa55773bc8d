package host

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/tidwall/gjson"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// gjsonPathExpr is a result path (a gjson path that may interpolate
// arguments) whose interpolated argument text is taken literally: a string
// from param or answer is escaped for where it lands, as a key
// (gjson.Escape: "a.b" is one key, not two) or inside a quoted query value
// ("x\"y"). Without it an argument could rewrite the path, as in
// "{\"email\":alice.password_hash}" for the path "${param.user}.email", and
// read parts of the output the result block leaves out. Numbers and bools
// are left as they are (index<=${param.limit}); a path that is a parameter
// whole (path = param.p) is the author's choice and is left as it is too.
type gjsonPathExpr struct{ hcl.Expression }

func (p gjsonPathExpr) Value(eval *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	tmpl, ok := p.Expression.(*hclsyntax.TemplateExpr)
	if !ok || len(tmpl.Parts) < 2 {
		return p.Expression.Value(eval)
	}
	// Each part is evaluated and made text once; the template then only
	// joins the texts. A part that is not plain text (unknown, null, not
	// convertible) leaves the whole to HCL, whose diagnostics say why.
	var prefix strings.Builder
	parts := make([]hclsyntax.Expression, len(tmpl.Parts))
	for i, part := range tmpl.Parts {
		if lit, ok := part.(*hclsyntax.LiteralValueExpr); ok && lit.Val.Type() == cty.String && !lit.Val.IsNull() {
			prefix.WriteString(lit.Val.AsString())
			parts[i] = lit
			continue
		}
		v, d := part.Value(eval)
		if d.HasErrors() {
			return p.Expression.Value(eval)
		}
		u, marks := v.UnmarkDeep()
		s, err := convert.Convert(u, cty.String)
		if err != nil || !s.IsKnown() || s.IsNull() {
			return p.Expression.Value(eval)
		}
		text := s.AsString()
		if u.Type() == cty.String && refersToArguments(part) {
			text = gjsonEscapeAt(prefix.String(), text)
		}
		prefix.WriteString(text)
		parts[i] = &hclsyntax.LiteralValueExpr{Val: cty.StringVal(text).WithMarks(marks), SrcRange: part.Range()}
	}
	return (&hclsyntax.TemplateExpr{Parts: parts, SrcRange: tmpl.SrcRange}).Value(nil)
}

// refersToArguments reports whether expr's text can come from the call's
// arguments (param) or the user's answers (answer). A conditional gives
// one of its results, so only they count: in
// ${param.unit == "c" ? "temp.c" : "temp.f"} the text is the author's.
func refersToArguments(expr hclsyntax.Expression) bool {
	switch x := expr.(type) {
	case *hclsyntax.ConditionalExpr:
		return refersToArguments(x.TrueResult) || refersToArguments(x.FalseResult)
	case *hclsyntax.ParenthesesExpr:
		return refersToArguments(x.Expression)
	}
	for _, tr := range expr.Variables() {
		if r := tr.RootName(); r == "param" || r == "answer" {
			return true
		}
	}
	return false
}

// gjsonEscapeAt escapes s for a gjson path that so far reads prefix:
// inside a quoted string (a query's value) as JSON string text, elsewhere
// as one key.
func gjsonEscapeAt(prefix, s string) string {
	quoted := false
	for i := 0; i < len(prefix); i++ {
		switch prefix[i] {
		case '\\':
			i++
		case '"':
			quoted = !quoted
		}
	}
	if !quoted {
		return gjson.Escape(s)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
