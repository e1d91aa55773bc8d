package adapters

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/internal/evalcap"
)

// backendBuildTotal is what the functions and loops of one exec or http
// call may build in all.
const backendBuildTotal = 2 * evalcap.MaxValue

// WithBudget returns ev, for one call of a backend, held to a Budget of
// evalcap.MaxValue for each value and backendBuildTotal in all, that ends
// when timeout (the block's) has passed or ctx is done, and the function
// to call once the call is done. Every function call checks the Budget
// first and is charged what it built: a function called in each
// iteration of a loop, or a chain of functions that each make their
// argument larger, would otherwise build evalcap.MaxValue many times over,
// and a slow one would run past the call's timeout.
func WithBudget(ctx context.Context, ev *hcl.EvalContext, timeout time.Duration) (*hcl.EvalContext, func()) {
	if ev == nil {
		return ev, func() {}
	}
	return evalcap.With(ev, evalcap.NewBudget(ctx, evalcap.MaxValue, backendBuildTotal, time.Now().Add(timeout)))
}

// PlainExprs reports whether exprs call no function and run no for
// expression (see evalcap.Plain): a backend whose per-call expressions
// are all plain may evaluate them without WithBudget, which builds a
// table of watched functions for every call.
func PlainExprs(exprs ...hcl.Expression) bool { return evalcap.Plain(exprs...) }
