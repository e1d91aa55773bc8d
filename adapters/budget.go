package adapters

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/internal/evalcap"
)

// hasLoops reports whether an expression of attrs has a for expression.
func hasLoops(attrs hcl.Attributes) bool {
	for _, a := range attrs {
		if evalcap.HasLoops(a.Expr) {
			return true
		}
	}
	return false
}

// backendBuildTotal is what the guarded functions of one exec or http
// call whose expressions have loops may build in all.
const backendBuildTotal = 2 * evalcap.MaxValue

// withBudget returns ev, for one call of a backend whose expressions have
// for expressions (loops), held to a Budget of evalcap.MaxValue for each
// value and backendBuildTotal in all, and the function to call once the
// call is done. A function that builds a large value, called in each
// iteration of a loop, would otherwise build evalcap.MaxValue as many
// times as the caller's list has elements. Without loops, ev is returned
// as it is: the functions are then called as many times as the config
// writes them, each held to evalcap.MaxValue.
func withBudget(ctx context.Context, ev *hcl.EvalContext, loops bool) (*hcl.EvalContext, func()) {
	if !loops || ev == nil {
		return ev, func() {}
	}
	return evalcap.With(ev, evalcap.NewBudget(ctx, evalcap.MaxValue, backendBuildTotal, time.Time{}))
}
