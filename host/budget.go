package host

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/evalcap"
)

// loopsIn reports whether an expression of exprs (nil ones skipped) has a
// for expression.
func loopsIn(exprs ...hcl.Expression) bool {
	for _, e := range exprs {
		if e != nil && evalcap.HasLoops(e) {
			return true
		}
	}
	return false
}

// contentExprs are the expressions of a content item.
func contentExprs(c *thcl.Content) []hcl.Expression {
	return []hcl.Expression{c.Text, c.Path, c.Data, c.URI}
}

// resultLoops reports whether an expression of a result block has a for
// expression.
func resultLoops(res *thcl.Result) bool {
	for _, f := range res.Fields {
		if loopsIn(f.Path) {
			return true
		}
	}
	for _, c := range res.Content {
		if loopsIn(contentExprs(c)...) {
			return true
		}
	}
	return false
}

// promptLoops reports whether a message of a prompt has a for expression.
func promptLoops(p *thcl.Prompt) bool {
	for _, m := range p.Messages {
		if loopsIn(m.Text) || m.Content != nil && loopsIn(contentExprs(m.Content)...) {
			return true
		}
	}
	return false
}

// loopBudget returns eval held to a Budget for evaluating expressions
// with loops over a caller's values, as exec and http blocks are: each
// value at most evalcap.MaxValue, what the guarded functions and the loops
// of expressions prepared with evalcap.Expr build at most twice that in
// all, within deadline (none when zero). It also returns the Budget and
// the function to call once done.
func loopBudget(ctx context.Context, eval *hcl.EvalContext, deadline time.Time) (*hcl.EvalContext, *evalcap.Budget, func()) {
	b := evalcap.NewBudget(ctx, evalcap.MaxValue, 2*evalcap.MaxValue, deadline)
	ev, done := evalcap.With(eval, b)
	return ev, b, done
}

// promptDeadline is how long a prompt with loops may take to render: as
// long as a template by default.
const promptDeadline = adapters.DefaultTemplateTimeout

// promptLimitError is the error of a prompt whose rendering went past a
// limit of its Budget.
func promptLimitError(name string, err *evalcap.LimitError) error {
	switch err.Kind {
	case evalcap.Deadline:
		return &PromptError{Msg: fmt.Sprintf("prompt %q: rendering stopped: it did not finish within %s; pass shorter arguments", name, promptDeadline)}
	case evalcap.Cancelled:
		return fmt.Errorf("prompt %q: rendering stopped: %v", name, err)
	}
	return &PromptError{Msg: fmt.Sprintf("prompt %q: rendering stopped: %v; pass shorter arguments", name, err)}
}
