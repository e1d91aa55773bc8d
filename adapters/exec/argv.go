package exec

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/redact"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// buildArgv evaluates the command for one call and applies the rules on
// leading dashes.
func (e *Exec) buildArgv(ectx *hcl.EvalContext) ([]string, error) {
	if e.argv != nil {
		return e.argv, nil
	}
	v, diags := e.command.Value(ectx)
	if diags.HasErrors() {
		return nil, evalError("command", diags)
	}
	// The elements are unmarked one by one (argString): a deep unmarking
	// of the list would build it again.
	v, _ = v.Unmark()
	if !v.IsKnown() || v.IsNull() || !(v.Type().IsListType() || v.Type().IsTupleType()) {
		return nil, errors.New("the command of this tool did not evaluate to a list; the tool's configuration needs fixing")
	}
	elems := v.AsValueSlice()
	if len(elems) == 0 {
		return nil, errors.New("the command of this tool evaluated to an empty list, so there is no program to run")
	}
	sources := e.sources
	if e.concatArgs != nil {
		sources = e.concatSources(ectx)
	}
	if len(sources) != len(elems) {
		sources = nil
	}
	argv := make([]string, len(elems))
	for i, el := range elems {
		el = adapters.Unmark(el)
		s, problem := argString(el)
		if problem != "" {
			return nil, fmt.Errorf("command[%d]%s %s, and each element of the command must be a string, number or bool%s",
				i, e.fromParams(sources, i), problem, e.giveValueHint(sources, i, el))
		}
		if strings.ContainsRune(s, 0) {
			return nil, &argRefusal{fmt.Sprintf("command[%d]%s contains a NUL character, which a command argument cannot hold; remove it",
				i, e.fromParams(sources, i))}
		}
		argv[i] = s
	}
	if argv[0] == "" {
		return nil, errors.New("the command of this tool has an empty program name; the tool's configuration needs fixing")
	}

	for i := 1; i < len(argv); i++ {
		var src argSource
		if sources != nil {
			src = sources[i]
		} else {
			src.params = e.allRefs
		}
		if src.separator {
			break // later elements are operands, not options
		}
		if !strings.HasPrefix(argv[i], "-") {
			continue
		}
		for _, p := range src.params {
			if !e.params[p].AllowFlags {
				return nil, &argRefusal{fmt.Sprintf("parameter %q value may not start with \"-\": it would be read as an option; "+
					"use a value that does not start with \"-\" (for a file name, prefix it with \"./\")", p)}
			}
		}
	}
	return argv, nil
}

// argRefusal is buildArgv's refusal of an argument value: one that
// would start an option, or that holds a NUL.
type argRefusal struct{ msg string }

// Error returns the refusal's message.
func (e *argRefusal) Error() string { return e.msg }

// CheckArguments reports whether the command refuses the call's argument
// values (see ArgumentChecker). It runs nothing: an error of evaluating the
// command, such as an unset env(), is left for Call.
func (e *Exec) CheckArguments(in *adapters.Input) error {
	var ectx *hcl.EvalContext
	if in != nil {
		ectx = in.Eval
	}
	bctx, done := e.budget(context.Background(), ectx)
	defer done()
	_, err := e.buildArgv(bctx)
	var refusal *argRefusal
	if !errors.As(err, &refusal) {
		return nil
	}
	return redact.Error(err, e.sensitiveValues(ectx))
}

// concatSources says where each element of a command written
// concat([...], ...) comes from, in one call: each list is evaluated again
// for its length. nil when one cannot be.
func (e *Exec) concatSources(ectx *hcl.EvalContext) []argSource {
	var sources []argSource
	for _, arg := range e.concatArgs {
		if arg.literal != nil {
			sources = append(sources, arg.literal...)
			continue
		}
		v, diags := arg.expr.Value(ectx)
		if diags.HasErrors() {
			return nil
		}
		v, _ = v.UnmarkDeep()
		if !v.IsKnown() || v.IsNull() || !v.CanIterateElements() {
			return nil
		}
		if ls, ok := e.listSources(arg.expr, ectx); ok && len(ls) == v.LengthInt() {
			sources = append(sources, ls...)
			continue
		}
		for range v.LengthInt() {
			sources = append(sources, argSource{params: arg.params})
		}
	}
	return sources
}

// listSources says where each element of one list of a command written
// concat([...], ...) comes from, in one call, when the list is a literal
// chosen by a conditional, as in param.oneline ? ["--oneline"] : []: the
// elements of the branch taken, not every parameter the condition names.
// ok is false when x is not such a list.
func (e *Exec) listSources(x hcl.Expression, ectx *hcl.EvalContext) ([]argSource, bool) {
	switch x := x.(type) {
	case *hclsyntax.ParenthesesExpr:
		return e.listSources(x.Expression, ectx)
	case *hclsyntax.ConditionalExpr:
		cv, diags := x.Condition.Value(ectx)
		if diags.HasErrors() {
			return nil, false
		}
		cv, _ = cv.UnmarkDeep()
		cv, err := convert.Convert(cv, cty.Bool)
		if err != nil || !cv.IsKnown() || cv.IsNull() {
			return nil, false
		}
		if cv.True() {
			return e.listSources(x.TrueResult, ectx)
		}
		return e.listSources(x.FalseResult, ectx)
	case *hclsyntax.TupleConsExpr:
		sources := make([]argSource, len(x.Exprs))
		for i, el := range x.Exprs {
			if len(el.Variables()) > 0 {
				sources[i].params = leadingParamRefs(el, e.paramNames)
				continue
			}
			v, diags := el.Value(ectx)
			if diags.HasErrors() {
				return nil, false
			}
			s, _ := argString(v)
			sources[i].separator = s == "--"
		}
		return sources, true
	}
	return nil, false
}

// fromParams names the parameters element i comes from, for messages.
func (e *Exec) fromParams(sources []argSource, i int) string {
	var ps []string
	if sources != nil {
		ps = sources[i].params
	} else {
		ps = e.allRefs
	}
	switch len(ps) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" (from parameter %q)", ps[0])
	default:
		return fmt.Sprintf(" (from parameters %s)", adapters.QuoteList(ps))
	}
}

// giveValueHint is what ends the error of element i, of value v, when a
// parameter it comes from was given no value; "" otherwise.
func (e *Exec) giveValueHint(sources []argSource, i int, v cty.Value) string {
	if v.IsNull() && e.fromParams(sources, i) != "" {
		return "; give the parameter a value"
	}
	return ""
}

// evalError turns the diagnostics of evaluating an attribute at call time
// into an error.
func evalError(attr string, diags hcl.Diagnostics) error {
	what := "the command's " + attr
	if attr == "command" {
		what = "the command"
	}
	return fmt.Errorf("evaluating %s failed: %s", what, adapters.EvalMessage(diags))
}

// argType reports whether values of ty can be one command argument.
func argType(ty cty.Type) bool {
	return ty == cty.DynamicPseudoType || ty.IsPrimitiveType()
}

// concatHead returns a command written as concat([...], ...), and the first
// element of its first list; a nil head when the command is not one.
func concatHead(x hcl.Expression) (*hclsyntax.FunctionCallExpr, hcl.Expression) {
	call, ok := x.(*hclsyntax.FunctionCallExpr)
	if !ok || call.Name != "concat" || len(call.Args) == 0 || call.ExpandFinal {
		return nil, nil
	}
	first, ok := call.Args[0].(*hclsyntax.TupleConsExpr)
	if !ok || len(first.Exprs) == 0 {
		return nil, nil
	}
	return call, first.Exprs[0]
}

// argProblem says why v cannot be one command argument, or returns "".
// Unknown values of a fitting type are fine.
func argProblem(v cty.Value) string {
	v = adapters.Unmark(v)
	switch {
	case !argType(v.Type()):
		return "is " + attr.TypeName(v.Type())
	case !v.IsKnown():
		return ""
	case v.IsNull():
		return "is null"
	}
	return ""
}

// argString converts a known value to one command argument.
func argString(v cty.Value) (string, string) {
	v = adapters.Unmark(v)
	if problem := argProblem(v); problem != "" {
		return "", problem
	}
	if !v.IsKnown() {
		return "", "is not known"
	}
	sv, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", "cannot be converted to a string"
	}
	return sv.AsString(), ""
}
