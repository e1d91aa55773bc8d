// Package telemetry is toolhost's observability: OpenTelemetry traces and
// metrics set up from the standard OTEL_* environment variables and off
// when none asks for an exporter (setup.go), the server span and duration
// metric of an MCP request following the semantic conventions for MCP
// (Request), child spans that backends start from the context they are
// called with, without knowing the host (Start, Transport), and the
// Prometheus metrics served at /metrics (Metrics).
//
// Off, it costs the hot path a nil check: host adds its middleware only
// when a Telemetry or Metrics is given, and a backend's Start returns nil
// when the context carries no recording span.
package telemetry

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// scope is the instrumentation scope of toolhost's spans and metrics.
const scope = "github.com/toolhost/toolhost"

// Attribute names of the semantic conventions for MCP, which the semconv
// packages of the Go SDK no longer carry (they moved to the GenAI
// conventions).
const (
	AttrMethod          = "mcp.method.name"
	AttrSessionID       = "mcp.session.id"
	AttrProtocolVersion = "mcp.protocol.version"
	AttrResourceURI     = "mcp.resource.uri"
	AttrRequestID       = "jsonrpc.request.id"
	AttrToolName        = "gen_ai.tool.name"
	AttrPromptName      = "gen_ai.prompt.name"
	AttrOperationName   = "gen_ai.operation.name"
	AttrErrorType       = "error.type"
	AttrRPCStatusCode   = "rpc.response.status_code"
	AttrNetworkTrans    = "network.transport"
)

// durationBuckets are the bucket bounds, in seconds, the semantic
// conventions advise for mcp.server.operation.duration.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Telemetry is the tracer and meter of a serve process; nil when
// OpenTelemetry is off. Its methods are safe for concurrent use.
type Telemetry struct {
	tracer   trace.Tracer // nil when traces are off
	duration metric.Float64Histogram
	prop     propagation.TextMapPropagator
	shutdown []func(context.Context) error
}

// Tracing reports whether t records spans.
func (t *Telemetry) Tracing() bool { return t != nil && t.tracer != nil }

// Shutdown flushes the spans and metrics not yet exported and stops the
// exporters, within ctx. A nil Telemetry has nothing to flush.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// ShutdownTimeout is how long Shutdown is given at exit to export what is
// left: the OTLP exporters' own timeout is 10s, too long to hold an exit.
const ShutdownTimeout = 5 * time.Second
