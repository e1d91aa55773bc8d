package telemetry

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Request is one MCP request being observed: its server span, when
// traces are on, and its start, for mcp.server.operation.duration.
type Request struct {
	t     *Telemetry
	span  trace.Span // nil when traces are off
	start time.Time
	attrs []attribute.KeyValue // low-cardinality: the span's and the metric's
}

// StartRequest starts observing a request of method. Its parent is the
// trace context in the request's params._meta (the keys traceparent and
// tracestate), or else in the HTTP request's headers (header is nil over
// stdio), unless OTEL_PROPAGATORS is none. The span is named "method target" (target may be empty), of kind
// server; attrs go on the span and the duration metric, spanAttrs (such as
// mcp.session.id, too many values for a metric) on the span only.
func (t *Telemetry) StartRequest(ctx context.Context, meta map[string]any, header http.Header, method, target string, attrs, spanAttrs []attribute.KeyValue) (context.Context, *Request) {
	r := &Request{t: t, start: time.Now(), attrs: attrs}
	if t.tracer == nil {
		return ctx, r
	}
	if t.prop == nil {
		// Transport sends no traceparent upstream either.
		ctx = context.WithValue(ctx, noPropagationKey{}, true)
	} else if _, ok := meta["traceparent"].(string); ok {
		ctx = t.prop.Extract(ctx, metaCarrier(meta))
	} else if header != nil {
		ctx = t.prop.Extract(ctx, propagation.HeaderCarrier(header))
	}
	name := method
	if target != "" {
		name = method + " " + target
	}
	ctx, r.span = t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attrs...), trace.WithAttributes(spanAttrs...))
	return ctx, r
}

// End ends a request: errType is empty when it succeeded, else the
// error.type of the semantic conventions (a JSON-RPC error code, or
// tool_error for a tool's result with isError); code is the JSON-RPC
// error code, 0 when there is none, which goes on the span and the
// metric as rpc.response.status_code, a string as the conventions type
// it. The status description is errType, not the error's message, which
// may quote arguments.
func (r *Request) End(errType string, code int64) {
	attrs := r.attrs
	if errType != "" {
		attrs = append(attrs[:len(attrs):len(attrs)], attribute.String(AttrErrorType, errType))
		if code != 0 {
			attrs = append(attrs, attribute.String(AttrRPCStatusCode, strconv.FormatInt(code, 10)))
		}
	}
	if r.span != nil {
		if errType != "" {
			r.span.SetAttributes(attrs[len(r.attrs):]...)
			r.span.SetStatus(codes.Error, errType)
		}
		r.span.End()
	}
	if r.t.duration != nil {
		r.t.duration.Record(context.Background(), time.Since(r.start).Seconds(), metric.WithAttributes(attrs...))
	}
}

// noPropagationKey marks the context of a request when OTEL_PROPAGATORS
// is none.
type noPropagationKey struct{}

// metaCarrier reads a trace context from params._meta, whose values are
// strings when a client put them there.
type metaCarrier map[string]any

// Get returns the string value of key, or "".
func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

// Set is not used: toolhost reads trace contexts from _meta, never writes
// them there.
func (m metaCarrier) Set(key, value string) { m[key] = value }

// Keys lists the keys of the map.
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// Span is a backend's span, a child of the call's; nil when the call is
// not traced. Its methods do nothing on nil.
type Span struct{ s trace.Span }

// Traced reports whether the call of ctx is traced, so that a backend
// builds a span's attributes only then.
func Traced(ctx context.Context) bool { return trace.SpanFromContext(ctx).IsRecording() }

// Start starts a child span of the span ctx carries, with the tracer that
// made it: backends trace through the context they are called with and
// never learn of the host's Telemetry. It returns ctx and nil when ctx
// carries no recording span.
func Start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, *Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, nil
	}
	ctx, s := parent.TracerProvider().Tracer(scope).Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, &Span{s}
}

// Set adds attributes to the span.
func (s *Span) Set(attrs ...attribute.KeyValue) {
	if s != nil {
		s.s.SetAttributes(attrs...)
	}
}

// End ends the span; errType, when not empty, marks it failed with that
// error.type.
func (s *Span) End(errType string) {
	if s == nil {
		return
	}
	if errType != "" {
		s.s.SetAttributes(attribute.String(AttrErrorType, errType))
		s.s.SetStatus(codes.Error, errType)
	}
	s.s.End()
}
