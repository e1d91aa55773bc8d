package template

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/evalcap"
	"github.com/toolhost/toolhost/internal/redact"
)

const (
	// DefaultMaxOutput is how many bytes a template may render, and each
	// value it builds on the way may have, when its block sets no
	// max_output.
	DefaultMaxOutput = evalcap.DefaultText
	// MaxMaxOutput is the largest max_output a template block may
	// set: the most any function builds outside a template.
	MaxMaxOutput = evalcap.MaxValue
	// DefaultTimeout is how long a template may take to render when its
	// block sets no timeout.
	DefaultTimeout = evalcap.DefaultTimeout
	// MaxTimeout is the largest timeout a template block may set.
	MaxTimeout = time.Minute
)

// Template is the template backend: it renders an HCL string expression
// from the call's arguments, with no I/O.
//
// What a call renders is bounded while it renders: the functions that can
// build a value much larger than their arguments (replace, format, join,
// ...) refuse one over max_output before they build it, all the values
// built may come to 8 times max_output, for expressions may run a bounded
// number of iterations, and rendering stops at the timeout.
type Template struct {
	tool string
	text hcl.Expression
	// eval is text prepared, once, to be evaluated under a budget.
	eval     *evalcap.Prepared
	mimeType string
	// constant holds the rendered text when it does not depend on arguments.
	constant *string
	// sensitive are the parameters whose values are redacted from errors.
	sensitive []string
	maxOutput int
	timeout   time.Duration
}

var templateBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "text", Required: true},
		{Name: "mime_type"},
		{Name: "max_output"},
		{Name: "timeout"},
	},
}

func init() {
	adapters.Register(adapters.Kind{
		Name:    "template",
		Summary: "renders text from the arguments, with no I/O",
		Compile: compileTemplate,
		Keys:    []string{"text"},
	})
}

func compileTemplate(block *hcl.Block, cc *adapters.CompileContext) (adapters.Backend, hcl.Diagnostics) {
	content, diags := block.Body.Content(templateBlockSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	t := &Template{
		tool:      cc.ToolName,
		text:      content.Attributes["text"].Expr,
		mimeType:  "text/plain",
		sensitive: adapters.SensitiveNames(cc.Params),
		maxOutput: DefaultMaxOutput,
		timeout:   DefaultTimeout,
	}
	t.eval = evalcap.Prepare(t.text)
	c := adapters.NewAttrs(cc)
	if a, ok := content.Attributes["max_output"]; ok {
		n, d, ok := c.ByteCount(a, MaxMaxOutput, "16 MiB")
		diags = append(diags, d...)
		if ok {
			t.maxOutput = n
		}
	}
	if a, ok := content.Attributes["timeout"]; ok {
		d, dd, ok := c.Duration(a, attr.DurationRange{Max: MaxTimeout, Example: `"2s"`, Examples: `"2s", "500ms" or "10s"`})
		diags = append(diags, dd...)
		if ok {
			t.timeout = d
		}
	}
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
		if len(str) > t.maxOutput {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Template text larger than max_output",
				Detail: fmt.Sprintf("The text has %d bytes, more than the %d that max_output allows. Raise max_output in this block (at most %d), or shorten the text.",
					len(str), t.maxOutput, MaxMaxOutput),
				Subject: t.text.Range().Ptr(),
			})
		}
	}
	return t, diags
}

// Call renders the text.
func (t *Template) Call(ctx context.Context, in *adapters.Input) (*adapters.Output, error) {
	if t.constant != nil {
		return &adapters.Output{Body: []byte(*t.constant), MIMEType: t.mimeType}, nil
	}
	// Every call renders under a budget: whatever functions the text
	// calls, each checks the timeout first and is charged what it built;
	// a call answers at its timeout, or when it is cancelled, even if a
	// function is still running. A text of parameters and strings alone
	// calls nothing and runs no loop: it needs no budget.
	var budget *evalcap.Budget
	if !t.eval.Unbudgeted() {
		budget = evalcap.NewBudget(ctx, t.maxOutput, evalcap.TotalFactor*t.maxOutput, time.Now().Add(t.timeout))
	}
	v, diags, lerr := t.eval.Run(in.Eval, budget)
	// The budget's error comes first: the diagnostics it leaves, if any,
	// say less, and a try() may have caught it.
	if lerr != nil {
		return nil, t.limitError(ctx, lerr)
	}
	if diags.HasErrors() {
		return nil, redact.Error(fmt.Errorf("rendering the template failed: %s", adapters.EvalMessage(diags)), adapters.SensitiveParamValues(in.Eval, t.sensitive))
	}
	if v.IsNull() {
		return nil, fmt.Errorf("the template rendered to null; give the optional parameters it uses a default, or use coalesce(...)")
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return nil, fmt.Errorf("the template did not render to text: %s", err)
	}
	if n := len(s.AsString()); n > t.maxOutput {
		return nil, fmt.Errorf("the template rendered %d bytes, more than its max_output of %d; pass shorter arguments, or raise max_output in the template block of tool %q (at most %d)",
			n, t.maxOutput, t.tool, MaxMaxOutput)
	}
	return &adapters.Output{Body: []byte(s.AsString()), MIMEType: t.mimeType}, nil
}

// limitError is the error of a call whose rendering went past a limit: it
// names the limit, the tool and how to raise it.
func (t *Template) limitError(ctx context.Context, err *evalcap.LimitError) error {
	raise := fmt.Sprintf("pass shorter arguments, or raise max_output in the template block of tool %q (at most %d)", t.tool, MaxMaxOutput)
	switch err.Kind {
	case evalcap.Value:
		return fmt.Errorf("the template stopped rendering: %s would build %d bytes, more than its max_output of %d; %s", err.What, err.Size, err.Max, raise)
	case evalcap.Total:
		return fmt.Errorf("the template stopped rendering: with %s the values it built came to %d bytes, more than %d (%d times its max_output of %d); %s",
			err.What, err.Size, err.Max, evalcap.TotalFactor, t.maxOutput, raise)
	case evalcap.Elements:
		return fmt.Errorf("the template stopped rendering: %s would build a list of %d elements, more than the %d a list may have; pass shorter arguments", err.What, err.Size, err.Max)
	case evalcap.Iterations:
		return fmt.Errorf("the template stopped rendering: its for expressions would run %d iterations, more than the %d a call may run; pass shorter lists", err.Size, err.Max)
	case evalcap.Deadline:
		return fmt.Errorf("the template stopped rendering: it did not finish within its timeout of %s; pass shorter arguments, or raise timeout in the template block of tool %q (at most %s)",
			attr.DurationText(t.timeout), t.tool, attr.DurationText(MaxTimeout))
	}
	return fmt.Errorf("the template stopped rendering: %w", context.Cause(ctx))
}

// Close does nothing: a template holds nothing.
func (t *Template) Close() error { return nil }

// hasFunctionCalls reports whether expr calls any function.
func hasFunctionCalls(expr hcl.Expression) bool {
	found := false
	_ = adapters.WalkExpr(expr, func(e hcl.Expression) {
		if _, ok := hcl.ExprCall(e); ok == nil {
			found = true
		}
	})
	return found
}

var _ adapters.Backend = (*Template)(nil)

// CallsOffline reports that rendering a template does no I/O.
func (t *Template) CallsOffline() bool { return true }

var _ adapters.OfflineCaller = (*Template)(nil)
