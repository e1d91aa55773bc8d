package host

import (
	"context"
	"fmt"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolhost/toolhost/internal/telemetry"
)

// BenchmarkServeStdioTraced is BenchmarkServeStdio with telemetry on: every
// request a span (batched to an exporter that drops them, as OTLP's batch
// would send them) and a point of mcp.server.operation.duration, and with
// the Prometheus metrics of /metrics alone. Set beside BenchmarkServeStdio,
// it is the cost per call of telemetry (BENCHMARKS.md).
func BenchmarkServeStdioTraced(b *testing.B) {
	for _, inflight := range []int{1, 8} {
		b.Run(fmt.Sprintf("otel/inflight=%d", inflight), func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			tel, err := telemetry.New(tp, mp)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = tel.Shutdown(context.Background()) }()
			benchServeStdio(b, inflight, Observe(tel, nil))
		})
		b.Run(fmt.Sprintf("prometheus/inflight=%d", inflight), func(b *testing.B) {
			benchServeStdio(b, inflight, Observe(nil, telemetry.NewMetrics(nil)))
		})
	}
}
