package telemetry

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkRequest is what telemetry adds to one tools/call when on: the
// server span with the attributes host gives it, batched to an exporter
// that drops it, and a point of mcp.server.operation.duration; and, for
// /metrics, the Prometheus series of the call.
func BenchmarkRequest(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tel, err := New(tp, mp)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()
	meta := map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	b.Run("otel", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			attrs := []attribute.KeyValue{
				attribute.String(AttrMethod, "tools/call"), attribute.String(AttrOperationName, "execute_tool"),
				attribute.String(AttrToolName, "say_hello"), attribute.String(AttrProtocolVersion, "2025-06-18"),
				attribute.String(AttrNetworkTrans, "pipe"),
			}
			_, r := tel.StartRequest(context.Background(), meta, nil, "tools/call", "say_hello", attrs, []attribute.KeyValue{attribute.String(AttrSessionID, "abc")})
			r.End("", 0)
		}
	})
	b.Run("prometheus", func(b *testing.B) {
		m := NewMetrics(nil)
		b.ReportAllocs()
		for b.Loop() {
			m.CallStarted()
			m.CallEnded("say_hello", 1000, false)
		}
	})
}
