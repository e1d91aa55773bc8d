// Package evalcap bounds what evaluating an expression with a caller's
// values may build. The functions of the language that can make a value
// much larger than their arguments (replace, regex_replace, format,
// formatlist, join, indent, jsonencode, and split and regexall, whose
// lists cost a few dozen bytes an element) work out the size of their
// result before they build it, and refuse one over a limit: MaxValue when
// no Budget is in force, the Budget's own otherwise. jsondecode, tonumber,
// parseint and distinct are replaced by versions that cannot take seconds
// or gigabytes. A Budget adds a total for all a call builds, a count of
// for-expression iterations (for expressions prepared by Expr) and a
// deadline, checked in those functions and loops and before every other
// function of the table, whose results are charged too (see watched).
// Run evaluates on a goroutine of its own, so that a call is answered at
// its deadline even when one function runs long.
package evalcap

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

const (
	// MaxValue is the largest string, in bytes, that a function of the
	// language builds when no Budget is in force: in exec and http blocks,
	// result expressions and prompts.
	MaxValue = 16 << 20
	// MaxIterations is how many iterations the for expressions of one
	// evaluation under a Budget may run in all, nested ones included. Each
	// iteration costs HCL allocations, however small its value: this
	// bounds them too.
	MaxIterations = 1 << 18
	// MaxElements is how many elements a list that split or regexall
	// builds may have: each costs a few dozen bytes, whatever its length.
	MaxElements = 1 << 18
	// TotalFactor is how many times its max_output a template may build in
	// all: the guarded functions' results and each iteration's value of a
	// for expression. A value is counted again in each value built of it
	// (an inner loop's, then the outer one's), so what is counted is more
	// than what is held.
	TotalFactor = 8
	// DefaultText is how many bytes of text an evaluation that renders
	// text (a template, a prompt's messages) may build when nothing sets
	// another limit; each value built on the way is held to it too.
	DefaultText = 1 << 20
	// DefaultTimeout is how long such an evaluation, or the expressions of
	// a result block, may take when nothing sets another limit.
	DefaultTimeout = 2 * time.Second
)

// Kind says which limit an evaluation went past.
type Kind int

const (
	// Value: one value would be larger than the limit of a value.
	Value Kind = iota
	// Total: the values built so far would come to more than the Budget's
	// total.
	Total
	// Iterations: the for expressions would run more than MaxIterations
	// times.
	Iterations
	// Elements: a list would have more than MaxElements elements.
	Elements
	// Deadline: the Budget's deadline passed.
	Deadline
	// Cancelled: the Budget's context was cancelled.
	Cancelled
)

// LimitError is an evaluation stopped at a limit.
type LimitError struct {
	Kind Kind
	// What names what would have gone past the limit, such as "replace()"
	// or "a for expression".
	What string
	// Size is what it would have built (bytes, iterations or elements);
	// Max is the limit. Both are zero for Deadline and Cancelled.
	Size, Max int64
}

func (e *LimitError) Error() string {
	switch e.Kind {
	case Value:
		return fmt.Sprintf("%s would build %d bytes, more than the %d a value may have", e.What, e.Size, e.Max)
	case Total:
		return fmt.Sprintf("%s would bring what the expression built to %d bytes, more than the %d it may build in all", e.What, e.Size, e.Max)
	case Iterations:
		return fmt.Sprintf("%s would bring the iterations of for expressions to %d, more than the %d allowed", e.What, e.Size, e.Max)
	case Elements:
		return fmt.Sprintf("%s would build a list of %d elements, more than the %d a list may have", e.What, e.Size, e.Max)
	case Deadline:
		return "the evaluation ran past its time limit"
	}
	return "the call was cancelled"
}

// Budget is what one evaluation may still build. It is used by one
// goroutine at a time.
type Budget struct {
	ctx      context.Context
	deadline time.Time
	maxValue int64
	maxTotal int64
	total    int64
	iters    int64
	err      *LimitError
	// checks counts deadline checks, so that the clock is read on one in
	// deadlineEvery.
	checks int
}

// deadlineEvery is how often (in checks) a Budget reads the clock.
const deadlineEvery = 64

// NewBudget returns a Budget of maxValue bytes per value, maxTotal in all
// and MaxIterations, that ends at deadline (none when zero) or when ctx is
// done.
func NewBudget(ctx context.Context, maxValue, maxTotal int, deadline time.Time) *Budget {
	return &Budget{ctx: ctx, deadline: deadline, maxValue: int64(maxValue), maxTotal: int64(maxTotal)}
}

// Err is the limit the evaluation went past, or nil. It is set even when a
// try() or can() in the expression caught the error.
func (b *Budget) Err() *LimitError {
	if b == nil {
		return nil
	}
	return b.err
}

// fail records err as the Budget's error, when none is yet, and returns
// the recorded one.
func (b *Budget) fail(err *LimitError) *LimitError {
	if b.err == nil {
		b.err = err
	}
	return b.err
}

// alive reports whether the evaluation may go on: no limit reached, the
// deadline not passed, the context not done. The clock and the context
// are read on every call when always is set (before a guarded function,
// whose work can take a while), on one in deadlineEvery otherwise (an
// iteration of a loop, which is quick).
func (b *Budget) alive(always bool) bool {
	if b.err != nil {
		return false
	}
	b.checks++
	if !always && b.checks%deadlineEvery != 1 {
		return true
	}
	if b.ctx != nil && b.ctx.Err() != nil {
		b.fail(&LimitError{Kind: Cancelled})
		return false
	}
	if !b.deadline.IsZero() && time.Now().After(b.deadline) {
		b.fail(&LimitError{Kind: Deadline})
		return false
	}
	return true
}

// build charges a value of size bytes, built by what, to the Budget, and
// returns the error that stops the evaluation, if any.
func (b *Budget) build(what string, size int64) *LimitError {
	if !b.alive(false) {
		return b.err
	}
	if size > b.maxValue {
		return b.fail(&LimitError{Kind: Value, What: what, Size: size, Max: b.maxValue})
	}
	b.total += size
	if b.total > b.maxTotal {
		return b.fail(&LimitError{Kind: Total, What: what, Size: b.total, Max: b.maxTotal})
	}
	return nil
}

// iterate charges n iterations of a for expression to the Budget.
func (b *Budget) iterate(n int64) *LimitError {
	if !b.alive(false) {
		return b.err
	}
	b.iters += n
	if b.iters > MaxIterations {
		return b.fail(&LimitError{Kind: Iterations, What: "a for expression", Size: b.iters, Max: MaxIterations})
	}
	return nil
}

// budgets are the Budgets in force, by the evaluation context With made
// for them: for expressions find theirs from the context they run in.
var budgets sync.Map

// With returns a child of ctx in which the guarded functions, and the for
// expressions of expressions prepared by Expr, are held to b, and every
// other function of ctx's table is watched (see watched), and the function
// to call once the evaluation is over.
func With(ctx *hcl.EvalContext, b *Budget) (*hcl.EvalContext, func()) {
	return with(ctx, b, nil)
}

// with is With for an expression that calls only the functions named in
// only, which alone are guarded or watched; all of them when only is nil.
func with(ctx *hcl.EvalContext, b *Budget, only map[string]bool) (*hcl.EvalContext, func()) {
	child := ctx.NewChild()
	child.Functions = make(map[string]function.Function, len(guards))
	for name, g := range guards {
		if only == nil || only[name] {
			child.Functions[name] = guarded(name, g, b)
		}
	}
	// Every other function of the table is watched: its calls check the
	// deadline and are charged to b.
	for c := ctx; c != nil; c = c.Parent() {
		for name, fn := range c.Functions {
			if _, ok := child.Functions[name]; !ok && (only == nil || only[name]) {
				child.Functions[name] = watched(name, fn, b)
			}
		}
	}
	budgets.Store(child, b)
	return child, func() { budgets.Delete(child) }
}

// calls returns the names of the functions expr calls, and whether that
// is all it does beyond putting values together: false when it has a for
// expression (whose parts a walk of a copy made by Expr does not see) or
// is not native syntax. names is nil when it calls none.
func calls(expr hcl.Expression) (names map[string]bool, ok bool) {
	se, isSyntax := expr.(hclsyntax.Expression)
	if !isSyntax {
		return nil, false
	}
	ok = true
	_ = hclsyntax.VisitAll(se, func(n hclsyntax.Node) hcl.Diagnostics {
		switch x := n.(type) {
		case *hclsyntax.FunctionCallExpr:
			if names == nil {
				names = map[string]bool{}
			}
			names[x.Name] = true
		case *hclsyntax.ForExpr, *loopExpr, *loopColl, *loopValue:
			ok = false
		}
		return nil
	})
	return names, ok
}

// Plain reports whether every one of exprs only puts values and text
// together: native syntax with no function call and no for expression.
// Nothing in such an expression can take long or build more than the
// values it joins, so it needs no Budget (Run evaluates it directly).
func Plain(exprs ...hcl.Expression) bool {
	for _, e := range exprs {
		if names, ok := calls(e); !ok || names != nil {
			return false
		}
	}
	return true
}

// budgetOf is the Budget in force for ctx, or nil.
func budgetOf(ctx *hcl.EvalContext) *Budget {
	for c := ctx; c != nil; c = c.Parent() {
		if b, ok := budgets.Load(c); ok {
			return b.(*Budget)
		}
	}
	return nil
}

// Functions returns the guarded functions with no Budget, by name, to
// replace the plain ones in a function table: each refuses to build a
// value over MaxValue. jsondecode, tonumber, parseint and distinct are
// JSONDecodeFunc, ToNumberFunc, ParseIntFunc and DistinctFunc. The map
// is shared: do not change it.
func Functions() map[string]function.Function {
	return unbudgeted()
}

var unbudgeted = sync.OnceValue(func() map[string]function.Function {
	fns := make(map[string]function.Function, len(guards)+1)
	for name, g := range guards {
		fns[name] = guarded(name, g, nil)
	}
	fns["jsondecode"] = JSONDecodeFunc
	fns["distinct"] = DistinctFunc
	fns["tonumber"] = ToNumberFunc
	fns["parseint"] = ParseIntFunc
	return fns
})

// guarded is the function g guards, checking the size of its result
// against b (MaxValue when b is nil) before it runs.
func guarded(name string, g guard, b *Budget) function.Function {
	base := g.fn
	params, varParam, convertArgs := looseParams(base)
	spec := &function.Spec{
		Description: base.Description(),
		Params:      params,
		VarParam:    varParam,
		Type: func(args []cty.Value) (cty.Type, error) {
			args, lerr := convertArgs(args)
			if lerr != nil {
				if b != nil {
					return cty.NilType, b.fail(named(lerr, name))
				}
				return cty.NilType, named(lerr, name)
			}
			return base.ReturnTypeForValues(args)
		},
		RefineResult: func(rb *cty.RefinementBuilder) *cty.RefinementBuilder {
			return rb.NotNull()
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			args, lerr := convertArgs(args)
			if lerr != nil {
				if b != nil {
					return cty.NilVal, b.fail(named(lerr, name))
				}
				return cty.NilVal, named(lerr, name)
			}
			limit := int64(MaxValue)
			if b != nil {
				if !b.alive(true) {
					return cty.NilVal, b.err
				}
				limit = b.maxValue
			}
			if wholly(args) {
				if g.regex != nil && b != nil {
					if str, pattern, ok := g.regex(args); ok {
						if lerr := b.matchInTime(str, pattern); lerr != nil {
							return cty.NilVal, lerr
						}
					}
				}
				if g.count != nil {
					if n := g.count(args); n > MaxElements {
						lerr := &LimitError{Kind: Elements, What: name + "()", Size: n, Max: MaxElements}
						if b != nil {
							lerr = b.fail(lerr)
						}
						return cty.NilVal, lerr
					}
				}
				// The estimate stops once past the limit: its own work is
				// bounded by it.
				if size := g.size(args, limit); size > limit {
					if b != nil {
						return cty.NilVal, b.fail(&LimitError{Kind: Value, What: name + "()", Size: size, Max: limit})
					}
					return cty.NilVal, &LimitError{Kind: Value, What: name + "()", Size: size, Max: limit}
				}
			}
			v, err := base.Call(args)
			if err == nil && b != nil && v.IsKnown() && !v.IsNull() {
				if lerr := b.build(name+"()", Size(v, b.maxValue)); lerr != nil {
					return cty.NilVal, lerr
				}
			}
			return v, err
		},
	}
	return function.New(spec)
}

// wholly reports whether every argument is known: only then is a size
// worked out; the function itself deals with the others, whose result is
// unknown.
func wholly(args []cty.Value) bool {
	for _, a := range args {
		if !a.IsWhollyKnown() {
			return false
		}
	}
	return true
}

// runGrace is how long past its deadline Run waits for an evaluation
// before it abandons it.
const runGrace = 250 * time.Millisecond

// Run evaluates expr (prepared by Expr) in ctx held to b, on a goroutine
// of its own, and returns its value and diagnostics. When the evaluation
// has not ended soon after b's deadline, or b's context is done first, Run
// returns at once with a Deadline or Cancelled error, and leaves the
// goroutine to end by itself: every function it calls and every loop it
// runs finds b spent, and it alone uses b from then on. A single call of
// a function is bounded by the caps, not stopped: Run is what answers the
// call in time when one runs longer than it should.
func Run(ctx *hcl.EvalContext, b *Budget, expr hcl.Expression) (cty.Value, hcl.Diagnostics, *LimitError) {
	names, plain := calls(expr)
	return run(ctx, b, expr, names, plain)
}

// Prepared is an expression made ready to be evaluated under a Budget
// (Expr) and looked at once for the functions it calls, which Run would
// otherwise find by walking it at every evaluation.
type Prepared struct {
	expr  hcl.Expression
	names map[string]bool
	plain bool
	parts []concatPart // a plain template's (concat.go), or nil
}

// Prepare prepares expr for evaluations under a Budget, as Expr does, and
// finds the functions it calls.
func Prepare(expr hcl.Expression) *Prepared {
	p := &Prepared{expr: Expr(expr)}
	p.names, p.plain = calls(p.expr)
	p.parts = concatParts(p.expr)
	return p
}

// Unbudgeted reports whether the expression calls no function and runs no
// loop: Run then evaluates it directly and never uses its Budget, which
// may be nil.
func (p *Prepared) Unbudgeted() bool { return p.plain && p.names == nil }

// Run is Run for the prepared expression.
func (p *Prepared) Run(ctx *hcl.EvalContext, b *Budget) (cty.Value, hcl.Diagnostics, *LimitError) {
	if p.parts != nil {
		if v, ok := concat(p.parts, ctx); ok {
			return v, nil, nil
		}
	}
	return run(ctx, b, p.expr, p.names, p.plain)
}

// run is Run with expr's functions found (see calls).
func run(ctx *hcl.EvalContext, b *Budget, expr hcl.Expression, names map[string]bool, plain bool) (cty.Value, hcl.Diagnostics, *LimitError) {
	type result struct {
		v     cty.Value
		diags hcl.Diagnostics
		err   *LimitError
	}
	if plain && names == nil {
		// Parameters and text put together, no function and no loop:
		// nothing can take long or build more than the values it joins.
		v, diags := expr.Value(ctx)
		return v, diags, nil
	}
	if !plain {
		names = nil // every function
	}
	if plain && quick(names) {
		// Functions whose work grows no faster than their arguments:
		// each checks the deadline as it is called, and none runs long
		// enough to need a goroutine to answer in time.
		ev, done := with(ctx, b, names)
		defer done()
		v, diags := expr.Value(ev)
		return v, diags, b.Err()
	}
	ch := make(chan result, 1)
	go func() {
		ev, done := with(ctx, b, names)
		defer done()
		v, diags := expr.Value(ev)
		ch <- result{v, diags, b.Err()}
	}()
	var expired <-chan time.Time
	if !b.deadline.IsZero() {
		timer := time.NewTimer(time.Until(b.deadline) + runGrace)
		defer timer.Stop()
		expired = timer.C
	}
	var cancelled <-chan struct{}
	if b.ctx != nil {
		cancelled = b.ctx.Done()
	}
	select {
	case r := <-ch:
		return r.v, r.diags, r.err
	case <-expired:
		return cty.DynamicVal, nil, &LimitError{Kind: Deadline}
	case <-cancelled:
		return cty.DynamicVal, nil, &LimitError{Kind: Cancelled}
	}
}

// quickFuncs are the functions whose work grows no faster than the size
// of their arguments and result, which the Budget caps: an expression
// that calls only these is evaluated on the caller's goroutine.
var quickFuncs = map[string]bool{
	"length": true, "upper": true, "lower": true, "title": true, "trimspace": true,
	"trim": true, "trimprefix": true, "trimsuffix": true, "chomp": true, "substr": true,
	"format": true, "tostring": true, "tonumber": true, "tobool": true, "abs": true,
	"ceil": true, "floor": true, "min": true, "max": true, "coalesce": true,
	"contains": true, "element": true, "lookup": true, "startswith": true, "endswith": true,
	"jsonencode": true, "base64encode": true, "base64decode": true, "urlencode": true,
	"strrev": true, "indent": true, "concat": true,
}

// quick reports whether every function in names is one of quickFuncs.
func quick(names map[string]bool) bool {
	for n := range names {
		if !quickFuncs[n] {
			return false
		}
	}
	return true
}
