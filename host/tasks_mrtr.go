package host

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"

	thcl "github.com/toolhost/toolhost/hcl"
)

// approveTask runs the approval (confirm, ask) of a 2026-07-28 call of a
// tool with task support before its task is created: nil when the call
// may become a task (m then carries the answers into it), or the result to
// answer with instead (the next question, or the refusal). params are
// args as DecodeArgs decoded them for t, a tool of reg.
func approveTask(ctx context.Context, reg *Registry, m *mrtrCall, t *thcl.Tool, params cty.Value, args json.RawMessage) (mcp.Result, error) {
	eval, refusal := reg.callEval(ctx, t, params)
	if refusal != nil {
		return withResultType(toolError(refusal.Error() + ".")), nil
	}
	answers, res := reg.approveMRTR(ctx, m, t, eval, params, args)
	if m.err != nil {
		return nil, m.err
	}
	if res != nil {
		return withResultType(res), nil
	}
	m.approved = &answers
	return nil, nil
}

// withResultType is res with the resultType the SDK gives results it
// returns itself ("input_required" for one with input requests), which it
// does not give a result returned by middleware, and whose field it keeps
// unexported: the result goes through its own JSON encoding.
func withResultType(res *mcp.CallToolResult) *mcp.CallToolResult {
	rt := "complete"
	if len(res.InputRequests) > 0 {
		rt = "input_required"
	}
	b, err := json.Marshal(res)
	var m map[string]json.RawMessage
	if err != nil || json.Unmarshal(b, &m) != nil {
		return res
	}
	m["resultType"], _ = json.Marshal(rt)
	b, _ = json.Marshal(m)
	var out mcp.CallToolResult
	if json.Unmarshal(b, &out) != nil {
		return res
	}
	return &out
}
