package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	ident "github.com/toolhost/toolhost/internal/identity"
)

// ErrUnknownTool is returned by CallTool for a name the config does not
// declare.
var ErrUnknownTool = errors.New("unknown tool")

// CallTool runs one tool call with no client to report to or ask (see
// CallToolFrom): it validates the arguments against the
// tool's parameters before anything runs, calls the backend, and shapes the
// output. Tool failures come back as a result with IsError set and a message
// a model can act on; only an unknown tool is an error.
func (r *Registry) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	return r.CallToolFrom(ctx, name, args, nil)
}

// CallToolFrom runs one tool call for peer, the client that made it: log
// lines and progress of the backend go to it, and it is asked to confirm
// tools that say confirm. A nil peer is a call without a client.
func (r *Registry) CallToolFrom(ctx context.Context, name string, args json.RawMessage, peer Peer) (*mcp.CallToolResult, error) {
	t, ok := r.tools[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownTool, shortName(name))
	}
	start := time.Now()
	res := r.callTool(ctx, t, args, peer)
	logToolCall(ctx, t, args, res, time.Since(start))
	return res, nil
}

// takeSlot waits for one of the max_concurrent_calls slots. It returns an
// error result when ctx ends first.
func (r *Registry) takeSlot(ctx context.Context, tool string, rep *callReporter) *mcp.CallToolResult {
	if r.trySlot() {
		return nil // a slot was free: the call did not wait
	}
	rep.setWaiting(true)
	ok := r.acquireSlot(ctx, "tool call", "tool", tool)
	rep.setWaiting(false)
	if !ok {
		return toolError(fmt.Sprintf("The call was cancelled while it waited for one of the %d calls running to finish (max_concurrent_calls in the server block)%s.", cap(r.slots), cancelReason(ctx)))
	}
	return nil
}

// acquireSlot waits for one of the max_concurrent_calls slots, shared by
// tool calls and reads of resources served by a backend, so that neither
// can start more commands or requests at once than the server block
// allows. It reports false when ctx ends first.
// what and key, name describe the waiter in the debug log line.
func (r *Registry) acquireSlot(ctx context.Context, what, key, name string) bool {
	if r.trySlot() {
		return true
	}
	slog.Debug(what+" waits for a slot", key, name, "max_concurrent_calls", cap(r.slots))
	select {
	case r.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// trySlot takes one of the max_concurrent_calls slots if one is free, and
// reports whether it did.
func (r *Registry) trySlot() bool {
	select {
	case r.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// callBackend runs the backend in the slot taken for it.
func (r *Registry) callBackend(ctx context.Context, t *thcl.Tool, in *adapters.Input) (*adapters.Output, error) {
	defer r.releaseSlot(ctx)
	return t.Backend.Call(ctx, in)
}

// releaseSlot gives back the slot of a call that has returned, unless the
// host stopped it as it exits: such a call returns before its command
// ends (see adapters.HostExiting), and its slot stays taken, so that a
// call waiting for one is not started by the same shutdown before its
// own context ends.
func (r *Registry) releaseSlot(ctx context.Context) {
	if errors.Is(context.Cause(ctx), adapters.ErrHostExiting) {
		return
	}
	<-r.slots
}

func (r *Registry) callTool(ctx context.Context, t *thcl.Tool, args json.RawMessage, peer Peer) *mcp.CallToolResult {
	// The decoded arguments are held until the call returns, also while
	// it waits for a slot. A call over MaxArgValues holds none:
	// DecodeArgs refuses it before it decodes.
	if n, _ := scanArgValues(args, MaxArgValues); n <= MaxArgValues {
		if err := holdArgValues(n); err != nil {
			return toolError(err.Error())
		}
		defer releaseArgValues(n)
	}
	params, err := DecodeArgs(t, args)
	if err != nil {
		return toolError(err.Error() + ".")
	}
	eval, refusal := r.callEval(ctx, t, params)
	if refusal != nil {
		return toolError(refusal.Error() + ".")
	}
	if t.Confirm != nil || t.Ask != nil {
		var answers cty.Value
		var res *mcp.CallToolResult
		if m := mrtrOf(ctx); m != nil {
			answers, res = r.approveMRTR(ctx, m, t, eval, params, args)
		} else {
			answers, res = r.approve(ctx, t, eval, peer)
		}
		if res != nil {
			return res
		}
		if t.Ask != nil {
			eval.Variables["answer"] = answers
		}
	}
	if res, ok := r.answerOffline(ctx, t, eval); ok {
		return res
	}
	in := &adapters.Input{Eval: eval, Caller: ident.FromContext(ctx)}
	rep := newCallReporter(ctx, peer, t.Name, r.heartbeat())
	if rep != nil {
		in.Report = rep
	}
	if res := r.takeSlot(ctx, t.Name, rep); res != nil {
		rep.finish()
		return res
	}
	out, err := r.callBackend(ctx, t, in)
	rep.finish()
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
			return toolError(cancelledMessage(ctx))
		}
		return toolError(err.Error())
	}
	return r.shapeOutput(ctx, t, eval, out)
}

// shapeOutput makes the result of a call of t from its backend's output:
// the output as a content item without a result block, else the result's
// fields and content items.
func (r *Registry) shapeOutput(ctx context.Context, t *thcl.Tool, eval *hcl.EvalContext, out *adapters.Output) *mcp.CallToolResult {
	if t.Result == nil {
		if out.Binary && out.Truncated {
			return toolError(fmt.Sprintf("the %s output was larger than the tool's size cap and was cut at %d bytes; raise the cap (%s)", out.MIMEType, len(out.Body), sizeCapAttr(t)))
		}
		res := outputResult(t.Name, out)
		if _, ok := t.Backend.(adapters.StructuredOutput); ok && !out.Truncated {
			res.StructuredContent = json.RawMessage(out.Body)
		}
		return res
	}
	if out.Truncated {
		return toolError(fmt.Sprintf("the output was larger than the tool's size cap and was cut at %d bytes, so the result cannot be read from it; raise the cap (%s) or narrow the request", len(out.Body), sizeCapAttr(t)))
	}
	res := &mcp.CallToolResult{}
	// A loop over the arguments or the output, a function that builds a
	// large value in it, or a slow function: each call of a function is
	// checked against the budget first. Plain expressions have none.
	if !resultPlain(t.Result) {
		var done func()
		eval, _, done = loopBudget(ctx, eval, time.Now().Add(resultDeadline))
		defer done()
	}
	if len(t.Result.Fields) > 0 {
		if out.Binary {
			return toolError(fmt.Sprintf("the output is %s, not JSON, so the result fields cannot be read from it", out.MIMEType))
		}
		structured, err := MapOutput(t.Result, out, eval)
		if err != nil {
			return toolError(out.Redact(err.Error()))
		}
		// The text item is for reading: a URL in it keeps its "&".
		res.Content = append(res.Content, &mcp.TextContent{Text: string(UnescapeHTML(structured))})
		res.StructuredContent = structured
	}
	for _, c := range t.Result.Content {
		item, err := r.renderContent(ctx, c, eval, out)
		if err != nil {
			return toolError(out.Redact(err.Error()))
		}
		res.Content = append(res.Content, item)
	}
	return res
}

// sizeCapAttr names the setting that caps a tool's output, for the message
// of an output cut at it.
func sizeCapAttr(t *thcl.Tool) string {
	if c, ok := t.Backend.(adapters.SizeCapper); ok {
		return c.SizeCapSetting()
	}
	return "max_output or max_response"
}

// heartbeat is how often a call that reports no progress sends an
// elapsed-time progress notification.
func (r *Registry) heartbeat() time.Duration {
	if s := r.Config.Server; s != nil && s.ProgressHeartbeat > 0 {
		return s.ProgressHeartbeat
	}
	return DefaultHeartbeat
}

// toolError is an isError result. It never carries structuredContent, so
// that a client checking it against outputSchema sees the real error.
func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// cancelledMessage is the error text of a call whose context ended: the
// reason, when the host is shutting down (a client that cancels a call
// gets no reply at all).
func cancelledMessage(ctx context.Context) string {
	return "the call was cancelled" + cancelReason(ctx)
}

// cancelReason is the reason a call's context ended, after ": ", when it
// has one (the host is shutting down); "" when the client cancelled it.
func cancelReason(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return ": " + cause.Error()
	}
	return ""
}
