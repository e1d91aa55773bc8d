package host

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	ident "github.com/toolhost/toolhost/internal/identity"
)

// tasksPOST answers the POSTs to /mcp of one tasks/get, tasks/cancel or
// tasks/update itself: the SDK does not know these methods and refuses
// them before any middleware could. It sits beneath streamablePOST, which
// has checked the body and the session, and above the SDK's handler. Like
// the SDK for the methods it knows, it checks the 2026-07-28 routing
// headers: Mcp-Method must name the method, and Mcp-Name, when sent, the
// task (-32020 otherwise).
func (h *HTTPServer) tasksPOST(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := r.Body.(*readBody)
		if r.Method != http.MethodPost || body == nil || !bytes.Contains(body.data, []byte(`"tasks/`)) {
			next.ServeHTTP(w, r)
			return
		}
		msgs, batch, ok := peekMessages(body.data)
		if !ok || batch || len(msgs) != 1 || !msgs[0].isCall() || !isTaskMethod(msgs[0].Method) {
			next.ServeHTTP(w, r)
			return
		}
		m := msgs[0]
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			var p taskParams
			_ = json.Unmarshal(m.Params, &p)
			switch name := r.Header.Get("Mcp-Name"); {
			case r.Header.Get("Mcp-Method") != m.Method:
				refuseHeaders(w, r, m.ID, "Header mismatch: the Mcp-Method header must be "+m.Method+", the method of the body.")
				return
			case name != "" && name != p.TaskID:
				refuseHeaders(w, r, m.ID, "Header mismatch: the Mcp-Name header must be the taskId of the body.")
				return
			}
		}
		res, rpcErr := h.srv.taskMethod(r.Context(), m.Method, m.Params, h.sessionHasTasks(r.Header.Get("Mcp-Session-Id")))
		if rpcErr != nil {
			status := http.StatusOK
			if rpcErr.Code == mcp.CodeMissingRequiredClientCapabilities {
				status = http.StatusBadRequest
			}
			writeRPCErrorData(w, status, m.ID, rpcErr)
			return
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})
}

// answerSSETask answers on its stream a tasks/get, tasks/cancel or
// tasks/update POSTed to a legacy SSE session, and reports whether m was
// one: the SDK would refuse it as a method it does not know.
func (s *sseHandler) answerSSETask(sess *sseSession, m jsonrpc.Message) bool {
	req, ok := m.(*jsonrpc.Request)
	if !ok || !req.IsCall() || !isTaskMethod(req.Method) {
		return false
	}
	resp := &jsonrpc.Response{ID: req.ID}
	// The caller of the POST, as withTokenInfo gave it, for the task's
	// subject.
	ctx := context.Background()
	if ex, ok := req.Extra.(*mcp.RequestExtra); ok && ex != nil {
		ctx = ident.NewContext(ctx, ident.FromTokenInfo(ex.TokenInfo))
	}
	res, rpcErr := s.h.srv.taskMethod(ctx, req.Method, req.Params, s.h.sessionHasTasks(sess.id))
	if rpcErr != nil {
		resp.Error = rpcErr
	} else {
		resp.Result = res
	}
	_ = sess.send(resp)
	return true
}

// sessionHasTasks reports whether the session with that id declared the
// tasks extension at initialize.
func (h *HTTPServer) sessionHasTasks(sid string) bool {
	if sid == "" {
		return false
	}
	ss := h.session(sid)
	return ss != nil && sessionDeclaresTasks(ss)
}

// writeRPCErrorData writes a JSON-RPC error response with its data.
func writeRPCErrorData(w http.ResponseWriter, status int, id any, e *jsonrpc.Error) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
