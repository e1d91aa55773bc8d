package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	thcl "github.com/toolhost/toolhost/hcl"
)

// A call of the 2026-07-28 protocol asks the user through multi-round-trip
// requests (SEP-2322), not through server-to-client elicitation: a tool
// with confirm or ask answers the first call with an input-required
// result (an elicitation input request and a signed requestState), and
// runs when the client calls it again with the answer and that state. A
// tool with both asks twice: the confirmation first, then the form.

// inputKeyConfirm is the key of a confirmation's input request; a form's
// is its ask block's id.
const inputKeyConfirm = "confirm"

// mrtrCall is what a 2026-07-28 tools/call brings for its approval: the
// client's answers and state, and whether the client can be asked at all.
// err, when set by the call, is the JSON-RPC error to answer with instead
// of the result (a state refused).
type mrtrCall struct {
	signer    *stateSigner
	responses mcp.InputResponseMap
	state     string
	canElicit bool
	err       error
	// approved, when set, is the approval a call run as a task already
	// had before the task was created (the form's answers; cty.NilVal
	// without a form): approveMRTR returns it without asking again.
	approved *cty.Value
}

type mrtrKey struct{}

// mrtrOf returns the multi-round-trip call ctx carries, or nil for a call
// that asks the user through elicitation (or cannot ask).
func mrtrOf(ctx context.Context) *mrtrCall {
	m, _ := ctx.Value(mrtrKey{}).(*mrtrCall)
	return m
}

// withMRTR marks ctx as the context of a tools/call of the 2026-07-28
// protocol, when req is one; it returns the call's mrtrCall too, or nil.
func (s *Server) withMRTR(ctx context.Context, req *mcp.CallToolRequest) (context.Context, *mrtrCall) {
	if req.Session == nil || !newProtocol(req.Session) {
		return ctx, nil
	}
	caps := clientCaps(ctx, req)
	m := &mrtrCall{
		signer:    s.states,
		responses: req.Params.InputResponses,
		state:     req.Params.RequestState,
		canElicit: caps != nil && caps.Elicitation != nil,
	}
	return context.WithValue(ctx, mrtrKey{}, m), m
}

// capsKey is the context key under which the direct path of stdio gives
// the calls of a 2026-07-28 client the capabilities their _meta declares,
// read once for the connection (stdio_fast.go, noteStdioMeta).
type capsKey struct{}

// clientCaps returns the capabilities of the client that sent req: those
// ctx carries for it, else the SDK's reading of the call's _meta
// (2026-07-28) or of initialize, which decodes the _meta's capabilities
// through a new 32 KiB decoder at each call.
func clientCaps(ctx context.Context, req *mcp.CallToolRequest) *mcp.ClientCapabilities {
	if caps, ok := ctx.Value(capsKey{}).(*mcp.ClientCapabilities); ok {
		return caps
	}
	return req.ClientCapabilities()
}

// approveMRTR is confirm and ask for a 2026-07-28 call: it returns the
// form's answers (cty.NilVal when the tool has no ask block) and nil to
// run the tool, or the result to answer with instead: an input-required
// result, or the refusal. A state refused sets m.err.
func (r *Registry) approveMRTR(ctx context.Context, m *mrtrCall, t *thcl.Tool, eval *hcl.EvalContext, params cty.Value, args json.RawMessage) (cty.Value, *mcp.CallToolResult) {
	if m.approved != nil {
		return *m.approved, nil
	}
	if !m.canElicit {
		// As for a session whose client cannot be asked: the fallback or
		// the refusal that says so (not the one of --stateless).
		return r.approve(context.WithValue(ctx, statelessKey{}, false), t, eval, nil)
	}
	if len(m.responses) > maxInputResponses {
		return m.refuse(fmt.Sprintf("the call carries %d inputResponses, more than the %d this server reads; send back only the answers to the inputRequests it asked", len(m.responses), maxInputResponses))
	}
	hash := argsHash(canonicalArgs(params, args))
	first := stageAsk
	if t.Confirm != nil {
		first = stageConfirm
	}
	if m.state == "" {
		// A first call, or answers without the state they answer: ask.
		return cty.NilVal, r.inputRequired(m, t, eval, hash, first, false)
	}
	st, err := m.signer.check(ctx, m.state, t.Name, hash)
	if errors.Is(err, errGuardUnavailable) {
		m.err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		return cty.NilVal, toolError(err.Error())
	}
	if err != nil {
		return m.refuse(err.Error())
	}
	if (st.stage == stageConfirm && t.Confirm == nil) || (st.stage == stageAsk && (t.Ask == nil || (t.Confirm != nil && !st.confirmed))) {
		return m.refuse(fmt.Sprintf("the tool %s changed since the requestState was issued (the config was reloaded); call it again without inputResponses and requestState to be asked again", t.Name))
	}
	key := inputKeyConfirm
	if st.stage == stageAsk {
		key = t.Ask.ID
	}
	res, ok := m.responses[key].(*mcp.ElicitResult)
	if !ok || res == nil {
		// The answer is missing: ask again, with a new state.
		return cty.NilVal, r.inputRequired(m, t, eval, hash, st.stage, st.confirmed)
	}
	if st.stage == stageConfirm {
		if res.Action != "accept" {
			return cty.NilVal, confirmDeclined(res.Action, confirmQuestion(t, eval), t.Name)
		}
		if t.Ask != nil {
			return cty.NilVal, r.inputRequired(m, t, eval, hash, stageAsk, true)
		}
		return cty.NilVal, nil
	}
	if res.Action != "accept" {
		return cty.NilVal, askDeclined(res.Action, askMessage(t, eval), t.Name)
	}
	raw, err := json.Marshal(res.Content)
	if err == nil && len(raw) > maxInputResponseBytes {
		return cty.NilVal, toolError(fmt.Sprintf("the user's answers are %d bytes of JSON, more than the %d this server reads for a form", len(raw), maxInputResponseBytes))
	}
	if err != nil || res.Content == nil {
		raw = []byte("{}")
	}
	return r.checkAnswers(t, raw)
}

// refuse sets m's error to an invalid-params error with msg; the result
// it returns only stands for it in approveMRTR's returns.
func (m *mrtrCall) refuse(msg string) (cty.Value, *mcp.CallToolResult) {
	m.err = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	return cty.NilVal, toolError(msg)
}

// inputRequired is the input-required result that asks stage of t, with a
// new state.
func (r *Registry) inputRequired(m *mrtrCall, t *thcl.Tool, eval *hcl.EvalContext, hash [32]byte, stage byte, confirmed bool) *mcp.CallToolResult {
	var key string
	var p *mcp.ElicitParams
	if stage == stageConfirm {
		key, p = inputKeyConfirm, &mcp.ElicitParams{Message: confirmQuestion(t, eval), RequestedSchema: emptyForm}
	} else {
		key, p = t.Ask.ID, &mcp.ElicitParams{Message: askMessage(t, eval), RequestedSchema: t.Ask.Schema}
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{key: p},
		RequestState:  m.signer.issue(t.Name, hash, stage, confirmed),
	}
}

// emptyForm is the requestedSchema of a confirmation: no fields, only
// accept, decline or cancel.
var emptyForm = json.RawMessage(`{"type":"object","properties":{}}`)

// canonicalArgs is the canonical form of a call's arguments, which a
// state binds: the decoded params (defaults filled in, keys sorted), so
// that a client re-encoding the same arguments differently still matches;
// the raw arguments if they cannot be encoded.
func canonicalArgs(params cty.Value, args json.RawMessage) []byte {
	if b, err := ctyjson.Marshal(params, params.Type()); err == nil {
		return b
	}
	return args
}
