package host

import (
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// recoverRequest, deferred in the handling of a request, turns a panic in
// it (a bug in toolhost, a backend or a library, which a caller's values
// may trigger) into an internal error for that request alone, logged with
// its stack: the SDK does not recover, and one request must not end the
// process and every other client's session with it.
func (s *Server) recoverRequest(method string, err *error) {
	p := recover()
	if p == nil {
		return
	}
	s.logger.Error("a request failed on an internal error (a bug: please report it with this log line)", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	*err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("toolhost failed on an internal error while it answered %s; the server's log has the details, and the server goes on serving", method)}
}
