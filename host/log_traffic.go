package host

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/redact"
)

// logTraffic adds, when the server logs at debug, the middleware that log
// the JSON-RPC messages of every session, on every transport: each
// request or notification received ("rpc in") and its answer ("rpc out"),
// and each request or notification the server sends ("rpc out") and the
// client's answer ("rpc in"). Secrets are masked (see redact.LogMask) and
// each message is cut to redact.MaxLogged bytes. It goes first, so that it
// sees the requests toolhost's own checks refuse.
func (s *Server) logTraffic() {
	if !s.logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	s.mcp.AddReceivingMiddleware(s.logReceived)
	s.mcp.AddSendingMiddleware(s.logSent)
}

// logReceived logs a message received and the server's answer. The
// answer to tools/list is logged as clients get it, with the tools'
// declarations in place of the SDK's stand-ins (declaredTools, which
// receive, above, then finds nothing more to replace in).
func (s *Server) logReceived(next mcp.MethodHandler) mcp.MethodHandler {
	declared := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err == nil && method == "tools/list" {
			res = s.current.Load().declaredTools(res)
		}
		return res, err
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		return logExchange(ctx, s.logger, "rpc in", "rpc out", s.maskFor(method, req), declared, method, req)
	}
}

// logSent logs a message the server sends and the client's answer.
func (s *Server) logSent(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		return logExchange(ctx, s.logger, "rpc out", "rpc in", &redact.LogMask{}, next, method, req)
	}
}

// logExchange logs req as sent one way (there) and its answer, unless it
// is a notification, as sent back (back).
func logExchange(ctx context.Context, logger *slog.Logger, there, back string, mask *redact.LogMask,
	next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	attrs := []any{"method", method}
	if ss := req.GetSession(); ss != nil && ss.ID() != "" {
		attrs = append(attrs, "session", sessionForLog(ss.ID()))
	}
	logger.Debug(there, append(attrs, "params", mask.Show(marshalForLog(req.GetParams())))...)
	start := time.Now()
	res, err := next(ctx, method, req)
	if strings.HasPrefix(method, "notifications/") {
		return res, err
	}
	attrs = append(attrs, "duration", time.Since(start))
	if err != nil {
		text := err.Error()
		if rpc, ok := err.(*jsonrpc.Error); ok {
			text = fmt.Sprintf("%d %s", rpc.Code, rpc.Message)
		}
		logger.Debug(back, append(attrs, "error", mask.Show([]byte(text)))...)
	} else {
		logger.Debug(back, append(attrs, "result", mask.Show(marshalForLog(res)))...)
	}
	return res, err
}

// sessionForLog is the start of a session id, enough to tell the
// sessions in a log apart: the whole id would let whoever reads the log
// send requests in the session.
func sessionForLog(id string) string {
	if len(id) <= 8 {
		return id
	}
	return id[:8] + "..."
}

// marshalForLog encodes v for a log line; a value that cannot be encoded
// is shown as the reason.
func marshalForLog(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("(cannot show: " + err.Error() + ")")
	}
	return b
}

// maskFor is the mask of a received request: for a tools/call, that of
// the tool called.
func (s *Server) maskFor(method string, req mcp.Request) *redact.LogMask {
	if method == "tools/call" {
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
			if reg := s.current.Load(); reg != nil {
				m := LogMask(reg.tools[p.Name])
				m.ArgumentsKey = "arguments"
				return m
			}
		}
	}
	return &redact.LogMask{}
}

// LogMask is what a log line masks in the messages of a call of t: the
// arguments of its parameters marked sensitive, and the secrets of every
// message (see redact.LogMask). t may be nil (an unknown tool).
func LogMask(t *thcl.Tool) *redact.LogMask {
	m := &redact.LogMask{}
	if t == nil {
		return m
	}
	for _, p := range t.Params {
		if p.Sensitive {
			if m.Sensitive == nil {
				m.Sensitive = map[string]bool{}
			}
			m.Sensitive[p.Name] = true
		}
	}
	return m
}

// refuse answers a malformed line of the input with an error and logs
// the problem: a client's bug, or a wrong program writing to toolhost's
// stdin, is otherwise seen only by the client. The line itself is logged
// at debug, masked and cut.
func (c *stdioConn) refuse(line []byte, id *jsonrpc.ID, code int64, msg string) {
	attrs := []any{"problem", msg, "bytes", len(line)}
	if id != nil {
		attrs = append(attrs, "id", formatID(*id))
	}
	if c.logger.Enabled(context.Background(), slog.LevelDebug) {
		attrs = append(attrs, "line", (&redact.LogMask{}).Show(line))
	}
	c.logger.Warn("malformed input line", attrs...)
	c.replyError(id, code, msg)
}
