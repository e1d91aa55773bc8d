package adapters

import (
	"context"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Template is the template backend: it renders an HCL string expression
// from the call's arguments, with no I/O.
type Template struct {
	text     hcl.Expression
	mimeType string
	// constant holds the rendered text when it does not depend on arguments.
	constant *string
	// sensitive are the parameters whose values are redacted from errors.
	sensitive []string
}

var templateBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "text", Required: true},
		{Name: "mime_type"},
	},
}

func init() {
	Register(Kind{Name: "template", Summary: "renders text from the arguments, with no I/O", Compile: compileTemplate})
}

func compileTemplate(block *hcl.Block, cc *CompileContext) (Backend, hcl.Diagnostics) {
	content, diags := block.Body.Content(templateBlockSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	t := &Template{text: content.Attributes["text"].Expr, mimeType: "text/plain", sensitive: sensitiveNames(cc.Params)}
	if a, ok := content.Attributes["mime_type"]; ok {
		v, d := a.Expr.Value(cc.Eval)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if v.Type() != cty.String || !v.IsWhollyKnown() || v.IsNull() {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid mime_type", Detail: "mime_type is a constant string such as \"text/markdown\".", Subject: a.Expr.Range().Ptr()})
			} else {
				t.mimeType = v.AsString()
			}
		}
	}
	v, d := t.text.Value(cc.Eval)
	diags = append(diags, d...)
	if d.HasErrors() {
		return nil, diags
	}
	if _, err := convert.Convert(v, cty.String); err != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Template text is not a string", Detail: fmt.Sprintf("text must evaluate to a string: %s. Use jsonencode(...) or format(...) to turn other values into text.", err), Subject: t.text.Range().Ptr()})
		return nil, diags
	}
	// now() and other impure functions make a value that looks constant
	// change between calls, so only a text with no function calls and no
	// variables is cached.
	if len(t.text.Variables()) == 0 && !hasFunctionCalls(t.text) && v.IsWhollyKnown() && !v.IsNull() {
		s, _ := convert.Convert(v, cty.String)
		str := s.AsString()
		t.constant = &str
	}
	return t, diags
}

// Call renders the text.
func (t *Template) Call(ctx context.Context, in *Input) (*Output, error) {
	if t.constant != nil {
		return &Output{Body: []byte(*t.constant), MIMEType: t.mimeType}, nil
	}
	v, diags := t.text.Value(in.Eval)
	if diags.HasErrors() {
		return nil, redactError(fmt.Errorf("rendering the template failed: %s", evalMessage(diags)), sensitiveParamValues(in.Eval, t.sensitive))
	}
	if v.IsNull() {
		return nil, fmt.Errorf("the template rendered to null; give the optional parameters it uses a default, or use coalesce(...)")
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return nil, fmt.Errorf("the template did not render to text: %s", err)
	}
	return &Output{Body: []byte(s.AsString()), MIMEType: t.mimeType}, nil
}

// Close does nothing: a template holds nothing.
func (t *Template) Close() error { return nil }

// hasFunctionCalls reports whether expr calls any function.
func hasFunctionCalls(expr hcl.Expression) bool {
	found := false
	_ = walkExpr(expr, func(e hcl.Expression) {
		if _, ok := hcl.ExprCall(e); ok == nil {
			found = true
		}
	})
	return found
}

var _ Backend = (*Template)(nil)
