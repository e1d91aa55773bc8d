package host

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"

	"github.com/toolhost/toolhost/internal/telemetry"
)

// Observe gives NewServer the OpenTelemetry set up from the environment and
// the Prometheus metrics of /metrics; either may be nil. With both nil the
// server adds nothing to a request's path.
func Observe(t *telemetry.Telemetry, m *telemetry.Metrics) ServerOption {
	return func(o *serverOptions) {
		if t != nil || m != nil {
			o.observe = &observer{t: t, m: m}
		}
	}
}

// observer observes the requests a server receives: a span and the
// mcp.server.operation.duration metric for each (when t is not nil), and
// the Prometheus metrics of tool calls (when m is not nil).
type observer struct {
	t *telemetry.Telemetry
	m *telemetry.Metrics
	// stdioIDs are the ids of the calls read over stdio, by the
	// RequestExtra the SDK hands middleware with each (stdio_ids.go).
	stdioIDs sync.Map
}

// middleware is the observer's receiving middleware, outside receive, so
// that the requests receive refuses are observed too.
func (o *observer) middleware(s *Server) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call := method == "tools/call"
			tool := ""
			if call {
				tool = s.knownTool(req)
				o.m.CallStarted()
			}
			var r *telemetry.Request
			if o.t != nil {
				ctx, r = o.start(ctx, s, method, req, tool)
			}
			start := time.Now()
			res, err := next(ctx, method, req)
			errType, code := outcome(res, err)
			if r != nil {
				r.End(errType, code)
			}
			if call {
				o.m.CallEnded(tool, time.Since(start), errType != "")
			}
			return res, err
		}
	}
}

// callTool observes a call made with Server.CallTool, outside MCP (the
// framed bridge's), as the middleware observes a tools/call: its span,
// named and attributed the same over a TCP connection of its own, and
// its metrics.
func (o *observer) callTool(ctx context.Context, s *Server, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	tool := telemetry.UnknownTool
	if reg := s.current.Load(); reg != nil {
		if _, ok := reg.Tool(name); ok {
			tool = name
		}
	}
	o.m.CallStarted()
	var r *telemetry.Request
	if o.t != nil {
		attrs := []attribute.KeyValue{
			attribute.String(telemetry.AttrMethod, "tools/call"),
			attribute.String(telemetry.AttrOperationName, "execute_tool"),
			attribute.String(telemetry.AttrNetworkTrans, "tcp"),
		}
		target := ""
		if tool != telemetry.UnknownTool {
			target = tool
			attrs = append(attrs, attribute.String(telemetry.AttrToolName, tool))
		}
		ctx, r = o.t.StartRequest(ctx, nil, nil, "tools/call", target, attrs, nil)
	}
	start := time.Now()
	res, err := s.callTool(ctx, name, args)
	errType, code := outcome(res, err)
	if r != nil {
		r.End(errType, code)
	}
	o.m.CallEnded(tool, time.Since(start), errType != "")
	return res, err
}

// tracing reports whether o traces requests, so that the transports note
// their ids for the spans (markRequestID, stdio_ids.go) only then.
func (o *observer) tracing() bool { return o != nil && o.t.Tracing() }

// knownTool is the name of the tool a tools/call calls, when the registry
// in service has it, else telemetry.UnknownTool: a name a client made up
// becomes no metric label and no span name.
func (s *Server) knownTool(req mcp.Request) string {
	if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
		if reg := s.current.Load(); reg != nil {
			if _, ok := reg.Tool(p.Name); ok {
				return p.Name
			}
		}
	}
	return telemetry.UnknownTool
}

// start starts the span of a request, with the attributes the semantic
// conventions for MCP give a server span.
func (o *observer) start(ctx context.Context, s *Server, method string, req mcp.Request, tool string) (context.Context, *telemetry.Request) {
	attrs := make([]attribute.KeyValue, 0, 6)
	spanAttrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, attribute.String(telemetry.AttrMethod, method))
	target := ""
	params := req.GetParams()
	if v := reflect.ValueOf(params); params == nil || (v.Kind() == reflect.Pointer && v.IsNil()) {
		params = nil
	}
	switch p := params.(type) {
	case *mcp.CallToolParamsRaw:
		attrs = append(attrs, attribute.String(telemetry.AttrOperationName, "execute_tool"))
		if tool != telemetry.UnknownTool {
			target = tool
			attrs = append(attrs, attribute.String(telemetry.AttrToolName, tool))
		}
	case *mcp.GetPromptParams:
		// A name a client made up becomes no span name and no metric
		// attribute, as a tool's does not.
		if reg := s.current.Load(); reg != nil && reg.prompts[p.Name] != nil {
			target = p.Name
			attrs = append(attrs, attribute.String(telemetry.AttrPromptName, p.Name))
		}
	case *mcp.ReadResourceParams:
		spanAttrs = append(spanAttrs, attribute.String(telemetry.AttrResourceURI, p.URI))
	}
	var meta map[string]any
	if params != nil {
		meta = params.GetMeta()
	}
	if v := protocolVersion(meta, params, req.GetSession()); v != "" {
		attrs = append(attrs, attribute.String(telemetry.AttrProtocolVersion, v))
	}
	var header http.Header
	ex := req.GetExtra()
	if ex != nil && ex.Header != nil {
		header = ex.Header
		attrs = append(attrs, attribute.String(telemetry.AttrNetworkTrans, "tcp"), attribute.String("network.protocol.name", "http"))
	} else {
		attrs = append(attrs, attribute.String(telemetry.AttrNetworkTrans, "pipe"))
	}
	id := header.Get(requestIDHeader)
	if header == nil && ex != nil {
		if v, ok := o.stdioIDs.Load(ex); ok {
			id = v.(string)
		}
	}
	if id != "" {
		spanAttrs = append(spanAttrs, attribute.String(telemetry.AttrRequestID, id))
	}
	if ss := req.GetSession(); ss != nil && ss.ID() != "" {
		spanAttrs = append(spanAttrs, attribute.String(telemetry.AttrSessionID, ss.ID()))
	}
	return o.t.StartRequest(ctx, meta, header, method, target, attrs, spanAttrs)
}

// protocolVersion is the MCP version of a request: the one its _meta names
// (2026-07-28 on), an initialize's own, or the one its session agreed on;
// "" for a version the SDK does not support, which a client may have made
// up: it would be a metric attribute value of its choosing.
func protocolVersion(meta map[string]any, params mcp.Params, session mcp.Session) string {
	v, ok := meta[mcp.MetaKeyProtocolVersion].(string)
	if p, isInit := params.(*mcp.InitializeParams); !ok && isInit {
		v = p.ProtocolVersion
	} else if ss, isSS := session.(*mcp.ServerSession); !ok && isSS && ss != nil {
		if ip := ss.InitializeParams(); ip != nil {
			v = ip.ProtocolVersion
		}
	}
	if slices.Contains(supportedVersions, v) {
		return v
	}
	return ""
}

// supportedVersions are the MCP versions the SDK speaks.
var supportedVersions = mcp.SupportedProtocolVersions()

// requestIDHeader carries the JSON-RPC id of the one call a POST holds
// from the HTTP layer, which removes a client's own, to the observer: the
// SDK gives middleware the request but not its id.
const requestIDHeader = "Toolhost-Request-Id"

// maxRequestIDLen is the longest jsonrpc.request.id put on a span: an id
// is the client's to choose, and spans are kept.
const maxRequestIDLen = 128

// markRequestID sets requestIDHeader to the id of a request, written as
// jsonrpc.request.id asks (requestIDString). It removes it for a request
// without an id (a notification).
func markRequestID(h http.Header, id jsonrpc.ID) {
	h.Del(requestIDHeader)
	if id.IsValid() {
		h.Set(requestIDHeader, requestIDString(id))
	}
}

// requestIDString is id as jsonrpc.request.id has it: a string as it is
// (cut at maxRequestIDLen), a number in decimal.
func requestIDString(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		if len(v) > maxRequestIDLen {
			v = strings.ToValidUTF8(v[:maxRequestIDLen], "")
		}
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return ""
}

// outcome is the error.type of a request's answer, empty when it
// succeeded, and its JSON-RPC error code, 0 when there is none: the code
// as a string for an error, tool_error for a tool's result with isError.
func outcome(res mcp.Result, err error) (string, int64) {
	if err != nil {
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			return strconv.FormatInt(we.Code, 10), we.Code
		}
		return "_OTHER", 0
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
		return "tool_error", 0
	}
	return "", 0
}
