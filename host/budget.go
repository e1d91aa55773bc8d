package host

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/internal/evalcap"
)

// loopBudget returns eval held to a Budget for evaluating expressions
// over a caller's values, as exec and http blocks are: each value at most
// evalcap.MaxValue, what the functions and the loops of expressions
// prepared with evalcap.Expr build at most twice that in all, within
// deadline (none when zero). It also returns the Budget and the function
// to call once done.
func loopBudget(ctx context.Context, eval *hcl.EvalContext, deadline time.Time) (*hcl.EvalContext, *evalcap.Budget, func()) {
	b := evalcap.NewBudget(ctx, evalcap.MaxValue, 2*evalcap.MaxValue, deadline)
	ev, done := evalcap.With(eval, b)
	return ev, b, done
}

const (
	// promptDeadline is how long a prompt may take to render: as long as
	// a template by default.
	promptDeadline = evalcap.DefaultTimeout
	// resultDeadline is how long the expressions of a result block may
	// take to evaluate, for one call.
	resultDeadline = evalcap.DefaultTimeout
	// MaxPromptText is how many bytes of text the messages of a prompt
	// may render in all: as much as a template renders by default.
	MaxPromptText = evalcap.DefaultText
)

// promptTooLong is the error of a prompt whose messages came to more than
// MaxPromptText.
func promptTooLong(name string) error {
	return &PromptError{Msg: fmt.Sprintf("prompt %q: rendering stopped: its messages came to more than the %d bytes of text a prompt may render; pass shorter arguments", name, MaxPromptText)}
}

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
