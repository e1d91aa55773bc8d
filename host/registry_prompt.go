package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/evalcap"
)

// PromptError is a prompts/get with arguments that do not fit the prompt.
type PromptError struct{ Msg string }

func (e *PromptError) Error() string { return e.Msg }

// GetPrompt renders a prompt with the given arguments.
func (r *Registry) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	p, ok := r.prompts[name]
	if !ok {
		return nil, &PromptError{Msg: fmt.Sprintf("unknown prompt %q", shortName(name))}
	}
	vals := make(map[string]cty.Value, len(p.Args))
	declared := map[string]bool{}
	for _, a := range p.Args {
		declared[a.Name] = true
		v, ok := args[a.Name]
		switch {
		case ok && len(a.Enum) > 0 && !slices.Contains(a.Enum, v):
			return nil, &PromptError{Msg: fmt.Sprintf("prompt %q: argument %q is %q, and must be one of %s", name, a.Name, shortName(v), strings.Join(quoteAll(a.Enum), ", "))}
		case ok:
			vals[a.Name] = cty.StringVal(v)
		case a.Required:
			return nil, &PromptError{Msg: fmt.Sprintf("prompt %q: missing required argument %q", name, a.Name)}
		default:
			vals[a.Name] = cty.NullVal(cty.String)
		}
	}
	for k := range args {
		if !declared[k] {
			return nil, &PromptError{Msg: fmt.Sprintf("prompt %q has no argument %q; %s", name, shortName(k), promptArgNames(p))}
		}
	}
	argObj := cty.EmptyObjectVal
	if len(vals) > 0 {
		argObj = cty.ObjectVal(vals)
	}
	eval, err := r.claimEval(ctx, "prompt", p.Name, p.Claims, nil, "arg", argObj)
	if err != nil {
		return nil, &PromptError{Msg: err.Error()}
	}
	// A prompt is held as a template with the default max_output and
	// timeout is.
	budget := evalcap.NewBudget(ctx, MaxPromptText, evalcap.TotalFactor*MaxPromptText, time.Now().Add(promptDeadline))
	plain := eval
	eval, done := evalcap.With(eval, budget)
	defer done()
	res := &mcp.GetPromptResult{Description: p.Description}
	// rendered is the length of the messages' text so far.
	rendered := 0
	for _, m := range p.Messages {
		if m.Content != nil {
			item, err := r.renderContent(ctx, m.Content, eval, nil)
			var je *jsonrpc.Error
			var nr *noResourceError
			noResource := errors.As(err, &nr) || errors.As(err, &je) && je.Code == mcp.CodeResourceNotFound
			if noResource && m.Content.URI != nil && len(m.Content.URI.Variables()) > 0 {
				// A URI made of the arguments names no resource: the
				// client's to correct, as any other argument problem.
				return nil, &PromptError{Msg: fmt.Sprintf("prompt %q: %v", name, err)}
			}
			if err := budget.Err(); err != nil {
				return nil, promptLimitError(name, err)
			}
			if err != nil {
				return nil, fmt.Errorf("prompt %q: %v", name, err)
			}
			if tc, ok := item.(*mcp.TextContent); ok {
				if rendered += len(tc.Text); rendered > MaxPromptText {
					return nil, promptTooLong(name)
				}
			}
			res.Messages = append(res.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: item})
			continue
		}
		// A message's text answers at the deadline even if a function is
		// still running.
		v, diags, lerr := evalcap.Run(plain, budget, evalcap.Expr(m.Text))
		if lerr != nil {
			return nil, promptLimitError(name, lerr)
		}
		if diags.HasErrors() {
			return nil, fmt.Errorf("prompt %q: %s", name, diags.Error())
		}
		s, err := convert.Convert(v, cty.String)
		if err != nil || s.IsNull() {
			return nil, fmt.Errorf("prompt %q: a message rendered to null; use coalesce(arg.NAME, \"default\") for optional arguments", name)
		}
		if rendered += len(s.AsString()); rendered > MaxPromptText {
			return nil, promptTooLong(name)
		}
		res.Messages = append(res.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: &mcp.TextContent{Text: s.AsString()}})
	}
	return res, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// promptArgNames lists p's arguments for a message about one it lacks.
func promptArgNames(p *thcl.Prompt) string {
	if len(p.Args) == 0 {
		return "it takes no arguments"
	}
	names := make([]string, len(p.Args))
	for i, a := range p.Args {
		names[i] = a.Name
	}
	return "its arguments are " + strings.Join(names, ", ")
}
