package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
)

// confirm asks the user to confirm a call of a tool that says confirm. It
// returns nil to go on, or the result that refuses the call.
func (r *Registry) confirm(ctx context.Context, t *thcl.Tool, eval *hcl.EvalContext, peer Peer) *mcp.CallToolResult {
	question := confirmQuestion(t, eval)
	if !canAsk(ctx, peer) {
		if t.ConfirmFallback == "allow" {
			return nil
		}
		return toolError(confirmRefusal(ctx, t.Name, question))
	}
	res, err := elicit(ctx, peer, &mcp.ElicitParams{
		Message:         question,
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	})
	switch {
	case err != nil:
		if errors.Is(err, errNoAnswer) {
			return toolError(fmt.Sprintf("nobody answered the confirmation (%q) within %s, so the tool %s did not run; call it again when the user is there to answer", question, elicitTimeout, t.Name))
		}
		if ctx.Err() != nil {
			return toolError(cancelledMessage(ctx))
		}
		return toolError(fmt.Sprintf("the tool %s needs the user's confirmation, and asking failed: %v", t.Name, err))
	case res.Action == "accept":
		return nil
	default:
		return confirmDeclined(res.Action, question, t.Name)
	}
}

// confirmQuestion is the question of a tool's confirm, or a default.
func confirmQuestion(t *thcl.Tool, eval *hcl.EvalContext) string {
	return stringOr(t.Confirm, eval, fmt.Sprintf("Run the tool %s?", t.Name))
}

// stringOr is the value of expr as a string, or def when it has none (an
// error, null or "").
func stringOr(expr hcl.Expression, eval *hcl.EvalContext, def string) string {
	if v, diags := expr.Value(eval); !diags.HasErrors() {
		if sv, err := convert.Convert(v, cty.String); err == nil && !sv.IsNull() && sv.AsString() != "" {
			return sv.AsString()
		}
	}
	return def
}

// confirmDeclined is the result of a confirmation answered with action,
// decline or cancel.
func confirmDeclined(action, question, tool string) *mcp.CallToolResult {
	if action == "decline" {
		return toolError(fmt.Sprintf("the user declined: %q was answered no, so the tool %s did not run; do not retry it unless the user asks", question, tool))
	}
	return toolError(fmt.Sprintf("the user cancelled the confirmation (%q), so the tool %s did not run", question, tool))
}

// elicitTimeout bounds how long a call waits for the user to answer a
// confirmation or a form: a person may take minutes, but a client that
// never answers must not keep the call (and its request) open for ever.
var elicitTimeout = 10 * time.Minute

// errNoAnswer is the cause of an elicitation that ran out of time.
var errNoAnswer = errors.New("no answer in time")

// elicit asks the user through peer, for at most elicitTimeout. It
// returns an error wrapping errNoAnswer when the time ran out first.
func elicit(ctx context.Context, peer Peer, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	ectx, cancel := context.WithTimeoutCause(ctx, elicitTimeout, errNoAnswer)
	defer cancel()
	res, err := peer.Elicit(ectx, p)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(ectx), errNoAnswer) {
		return nil, fmt.Errorf("%w: %v", errNoAnswer, err)
	}
	return res, err
}

// approve asks the user through peer to confirm a call of t, then to fill
// in its form, each when t has one: it returns the form's answers
// (cty.NilVal without an ask block) and nil to run the tool, or the result
// that ends the call.
func (r *Registry) approve(ctx context.Context, t *thcl.Tool, eval *hcl.EvalContext, peer Peer) (cty.Value, *mcp.CallToolResult) {
	if (t.Confirm != nil || t.Ask != nil) && ctx.Value(directKey{}) != nil {
		// HTTP's direct path took the call when the tool asked nothing; a
		// reload has since given it a question, which the direct path
		// cannot carry (its answer would come to the SDK). The client's
		// next call goes the SDK's way.
		return cty.NilVal, toolError(fmt.Sprintf("the tool %s was changed by a reload while this call was on its way, and now asks the user before it runs; nothing ran: call it again", t.Name))
	}
	if t.Confirm != nil {
		if res := r.confirm(ctx, t, eval, peer); res != nil {
			return cty.NilVal, res
		}
	}
	if t.Ask != nil {
		return r.ask(ctx, t, eval, peer)
	}
	return cty.NilVal, nil
}

// ask asks the user the tool's form and returns the answers, checked as
// arguments are, or the result that ends the call.
func (r *Registry) ask(ctx context.Context, t *thcl.Tool, eval *hcl.EvalContext, peer Peer) (cty.Value, *mcp.CallToolResult) {
	message := askMessage(t, eval)
	if !canAsk(ctx, peer) {
		fields := make([]string, len(t.Ask.Fields))
		for i, f := range t.Ask.Fields {
			fields[i] = f.Name
		}
		return cty.NilVal, toolError(askRefusal(ctx, t.Name, message, fields))
	}
	res, err := elicit(ctx, peer, &mcp.ElicitParams{Message: message, RequestedSchema: t.Ask.Schema})
	switch {
	case err != nil:
		if errors.Is(err, errNoAnswer) {
			return cty.NilVal, toolError(fmt.Sprintf("nobody answered the form (%q) within %s, so the tool %s did not run; call it again when the user is there to answer", message, elicitTimeout, t.Name))
		}
		if ctx.Err() != nil {
			return cty.NilVal, toolError(cancelledMessage(ctx))
		}
		// The SDK checks the answers against the form before we see them.
		if _, detail, ok := strings.Cut(err.Error(), "does not match requested schema: "); ok {
			detail = strings.TrimPrefix(detail, "validating root: ")
			return cty.NilVal, toolError(fmt.Sprintf("the user's answers do not fit the form (%s); the client let through an answer the form does not allow", detail))
		}
		return cty.NilVal, toolError(fmt.Sprintf("the tool %s needs the user's answers, and asking failed: %v", t.Name, err))
	case res.Action != "accept":
		return cty.NilVal, askDeclined(res.Action, message, t.Name)
	}
	raw, err := json.Marshal(res.Content)
	if err != nil || res.Content == nil {
		raw = []byte("{}")
	}
	return r.checkAnswers(t, raw)
}

// askMessage is the message of a tool's ask block, or a default.
func askMessage(t *thcl.Tool, eval *hcl.EvalContext) string {
	return stringOr(t.Ask.Message, eval, fmt.Sprintf("The tool %s needs some details.", t.Name))
}

// askDeclined is the result of a form answered with action, decline or
// cancel.
func askDeclined(action, message, tool string) *mcp.CallToolResult {
	text := fmt.Sprintf("the user cancelled the form (%q), so the tool %s did not run", message, tool)
	if action == "decline" {
		text = fmt.Sprintf("the user declined to answer (%q), so the tool %s did not run; do not retry it unless the user asks", message, tool)
	}
	return toolError(text)
}

// checkAnswers decodes the answers to t's form, raw JSON, and checks them
// as arguments are: it returns them, or the result that ends the call.
func (r *Registry) checkAnswers(t *thcl.Tool, raw []byte) (cty.Value, *mcp.CallToolResult) {
	answers, err := DecodeArgs(&thcl.Tool{Name: t.Name, Params: t.Ask.Fields}, raw)
	if err != nil {
		return cty.NilVal, toolError(fmt.Sprintf("the user's answers do not fit the form: %s", answerText(err)))
	}
	for _, f := range t.Ask.Fields {
		v := answers.GetAttr(f.Name)
		if v.IsNull() || !v.IsKnown() {
			continue
		}
		var values []cty.Value
		if v.Type().IsListType() {
			values = v.AsValueSlice()
		} else if v.Type() == cty.String {
			values = []cty.Value{v}
		}
		for _, e := range values {
			if len(f.Choices) > 0 && !containsValue(f.Choices, e) {
				return cty.NilVal, toolError(fmt.Sprintf("the user's answer %q is %q, which is not one of its choices", f.Name, shortName(e.AsString())))
			}
			if ac, ok := t.Backend.(adapters.AnswerChecker); ok {
				if err := ac.CheckAnswer(f.Name, e.AsString()); err != nil {
					return cty.NilVal, toolError(err.Error())
				}
			}
		}
	}
	return answers, nil
}

func containsValue(list []cty.Value, v cty.Value) bool {
	for _, e := range list {
		if e.Equals(v).True() {
			return true
		}
	}
	return false
}
