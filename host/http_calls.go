package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cancelSessionCalls cancels the calls in flight on the session a DELETE
// ends, as if the client had sent notifications/cancelled for each: the SDK
// would otherwise wait for them to finish (a slow command runs on) before
// it answers the DELETE, then drop their answers. Each cancellation goes to
// the SDK's handler as the client's would, so that the SDK cancels the
// call's context; the streams of those calls then end without an answer.
func (h *HTTPServer) cancelSessionCalls(sdk http.Handler, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		return
	}
	for _, id := range h.calls.inSession(sid) {
		h.calls.cancel(sid, id)
		note, err := json.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"method":  "notifications/cancelled",
			"params":  map[string]any{"requestId": id.Raw(), "reason": "the client ended the session"},
		})
		if err != nil {
			continue
		}
		req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, r.URL.String(), bytes.NewReader(note))
		if err != nil {
			continue
		}
		req.Host = r.Host
		req.RemoteAddr = r.RemoteAddr
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
			req.Header.Set("Mcp-Protocol-Version", v)
		}
		sdk.ServeHTTP(discardResponse{}, req)
	}
}

// callTracker follows the calls in flight on the POSTs of streamable HTTP
// sessions, and which of them the client cancelled.
type callTracker struct {
	mu    sync.Mutex
	calls map[trackedKey]*trackedCall
	// cancelled counts the tracked calls that were cancelled: while it is
	// 0, nothing needs a look.
	cancelled atomic.Int64
}

type trackedKey struct {
	session string
	id      jsonrpc.ID
}

// trackedCall is a call of a POST in flight.
type trackedCall struct {
	cancelled atomic.Bool
	// stored is set once the event store has kept its answer (emptied).
	stored atomic.Bool
	// stop, when set, cancels the call: one the direct path runs
	// (http_direct.go), which the SDK does not know.
	stop atomic.Pointer[context.CancelFunc]
}

// add tracks a call, or returns nil when its id is already in flight on
// the session (the SDK refuses the new one; the first keeps its entry).
func (t *callTracker) add(session string, id jsonrpc.ID) *trackedCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := trackedKey{session, id}
	if t.calls[k] != nil {
		return nil
	}
	c := &trackedCall{}
	t.calls[k] = c
	return c
}

// remove stops tracking c, once the POST that carried it has ended.
func (t *callTracker) remove(session string, id jsonrpc.ID, c *trackedCall) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := trackedKey{session, id}
	if t.calls[k] == c {
		delete(t.calls, k)
		if c.cancelled.Load() {
			t.cancelled.Add(-1)
		}
	}
}

// cancel marks a call in flight as cancelled by the client.
func (t *callTracker) cancel(session string, id jsonrpc.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.calls[trackedKey{session, id}]; c != nil && c.cancelled.CompareAndSwap(false, true) {
		t.cancelled.Add(1)
		if stop := c.stop.Load(); stop != nil {
			(*stop)()
		}
	}
}

// inSession lists the ids of the calls in flight on a session.
func (t *callTracker) inSession(session string) []jsonrpc.ID {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []jsonrpc.ID
	for k := range t.calls {
		if k.session == session {
			ids = append(ids, k.id)
		}
	}
	return ids
}

// answerCancelled reports whether an answer with the id about to be stored
// for a session answers a call the client cancelled. Only the first answer
// counts: a new call that reuses the id before the old POST has ended
// keeps its own.
func (t *callTracker) answerCancelled(session string, id jsonrpc.ID) bool {
	if t.cancelled.Load() == 0 {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.calls[trackedKey{session, id}]
	return c != nil && c.cancelled.Load() && !c.stored.Swap(true)
}

// responseTo returns the id of the call that a JSON-RPC message answers,
// and false for any other message.
func responseTo(data []byte) (jsonrpc.ID, bool) {
	var m peekedMessage
	if json.Unmarshal(data, &m) != nil || !m.isResponse() {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(m.ID)
	return id, err == nil
}

// cancelAwareStore is the event store of streamable HTTP sessions. It keeps
// the answer to a cancelled call as an empty event (the SDK's event
// indexes stay aligned, and a resumed stream skips empty events), so that
// no resumption delivers it either.
type cancelAwareStore struct {
	mcp.EventStore
	calls   *callTracker
	streams *sessionStreams
	// onClose is told of each session that ends.
	onClose func(sessionID string)
}

func (s *cancelAwareStore) SessionClosed(ctx context.Context, sessionID string) error {
	s.streams.SessionClosed(sessionID)
	s.onClose(sessionID)
	return s.EventStore.SessionClosed(ctx, sessionID)
}

func (s *cancelAwareStore) Append(ctx context.Context, sessionID, streamID string, data []byte) error {
	dropped := false
	if len(data) > 0 && s.calls.cancelled.Load() > 0 {
		if id, ok := responseTo(data); ok && s.calls.answerCancelled(sessionID, id) {
			data, dropped = nil, true
		}
	}
	if err := s.EventStore.Append(ctx, sessionID, streamID, data); err != nil {
		return err
	}
	s.streams.Append(sessionID, streamID, dropped)
	return nil
}

// callMiddleware applies the request timeout to every MCP request, counts
// the requests in flight and ties them to the shutdown's last resort.
func (h *HTTPServer) callMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		if extra := req.GetExtra(); extra != nil && extra.Header != nil {
			h.waiters.callStarted(extra.Header)
		}
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && h.statelessSession(ss) {
			// The call cannot ask the client anything; confirm and ask say
			// why (--stateless) instead of blaming the client.
			ctx = withStateless(ctx)
			if method == "initialize" {
				// Only clients before 2026-07-28 initialize, and no
				// notification reaches them between their requests: no
				// list changes, no resource updates.
				defer func() {
					if r, ok := res.(*mcp.InitializeResult); ok && r.Capabilities != nil {
						r.Capabilities = withoutNotifications(r.Capabilities)
					}
				}()
			}
			if method != "logging/setLevel" && !newProtocol(ss) && ctx.Value(oneShotKey{}) == nil {
				// The SDK gives each stateless request a session whose level
				// is info, as if the client had set it. No client did (a
				// level cannot outlive its request here): the default
				// applies, as it does on sessions that never set one. (A
				// one-shot session, http_oneshot.go, starts with it.)
				_, _ = next(ctx, "logging/setLevel", &mcp.ServerRequest[*mcp.SetLoggingLevelParams]{
					Session: ss,
					Params:  &mcp.SetLoggingLevelParams{Level: DefaultLogLevel},
				})
			}
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ctx, cancelWhy := context.WithCancelCause(ctx)
		defer cancelWhy(nil)
		defer h.onStop(cancelWhy)()
		if method == "subscriptions/listen" {
			// A listen stream lasts as long as the client wants it, or
			// until a shutdown starts.
			stopListen := context.AfterFunc(h.streamsCtx, cancel)
			defer stopListen()
			return next(ctx, method, req)
		}
		h.inflight.Add(1)
		defer h.inflight.Add(-1)
		if h.opts.RequestTimeout <= 0 {
			return next(ctx, method, req)
		}
		ctx, cancelT := context.WithTimeoutCause(ctx, h.opts.RequestTimeout, errRequestTimeout)
		defer cancelT()
		res, err = next(ctx, method, req)
		if context.Cause(ctx) == errRequestTimeout {
			msg := fmt.Sprintf("the request ran longer than the server's request timeout (%s) and was stopped; the server's operator can raise it with --request-timeout", h.opts.RequestTimeout)
			if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
				// The _meta stays: after a reload that renamed the server it
				// holds the identity in service (Server.describe).
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}, Meta: r.Meta}
			} else if err != nil {
				err = errors.New(msg)
			}
		}
		return res, err
	}
}

// withoutNotifications is c without the capabilities that promise
// notifications between requests (listChanged, resource subscriptions).
func withoutNotifications(c *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	out := *c
	if c.Tools != nil {
		t := *c.Tools
		t.ListChanged = false
		out.Tools = &t
	}
	if c.Resources != nil {
		r := *c.Resources
		r.ListChanged, r.Subscribe = false, false
		out.Resources = &r
	}
	if c.Prompts != nil {
		p := *c.Prompts
		p.ListChanged = false
		out.Prompts = &p
	}
	return &out
}

// errRequestTimeout is the cause of a request's cancellation by
// RequestTimeout.
var errRequestTimeout = errors.New("request timeout")

// InFlight returns the number of MCP requests being handled.
func (h *HTTPServer) InFlight() int64 { return h.inflight.Load() }
