package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
)

// FromEnv sets up OpenTelemetry as the standard environment variables say
// of the process, or returns nil when none asks for an exporter:
// traces are exported when OTEL_TRACES_EXPORTER is otlp, or is unset and
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set;
// metrics likewise with OTEL_METRICS_EXPORTER and
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT. OTEL_SDK_DISABLED=true turns both
// off. OTEL_EXPORTER_OTLP_PROTOCOL (or its per-signal form) chooses
// http/protobuf, the default, or grpc; the exporters read the endpoint,
// headers, timeout and TLS variables themselves, the SDK the sampler,
// batch and export interval ones, and the resource comes from
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES over service.name
// toolhost and the version given; OTEL_PROPAGATORS chooses whether
// requests follow their clients' trace context (see propagator). Export
// errors go to logger.
func FromEnv(ctx context.Context, version string, logger *slog.Logger) (*Telemetry, error) {
	// The exporters and the SDK read the process's environment too, so
	// there is no other to read.
	getenv := os.Getenv
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	traces, err := wanted(getenv, "TRACES")
	if err != nil {
		return nil, err
	}
	metrics, err := wanted(getenv, "METRICS")
	if err != nil {
		return nil, err
	}
	if !traces && !metrics {
		return nil, nil
	}
	prop, err := propagator(getenv)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("toolhost"), semconv.ServiceVersion(version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES or OTEL_SERVICE_NAME: %v; write them as key=value pairs separated by commas", err)
	}
	if logger != nil {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			logger.Warn("telemetry could not be exported", "error", err)
		}))
	}
	var tp *sdktrace.TracerProvider
	var mp *sdkmetric.MeterProvider
	if traces {
		exp, err := traceExporter(ctx, getenv)
		if err != nil {
			return nil, err
		}
		tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	}
	if metrics {
		exp, err := metricExporter(ctx, getenv)
		if err != nil {
			if tp != nil {
				_ = tp.Shutdown(ctx)
			}
			return nil, err
		}
		mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
	}
	t, err := New(tp, mp)
	if err != nil {
		return nil, err
	}
	t.prop = prop
	return t, nil
}

// propagator is the propagator OTEL_PROPAGATORS names: W3C Trace Context
// (tracecontext, the default) with or without W3C Baggage (baggage), or
// nil for none, which makes every request the root of a trace of its own
// whatever trace context the client sends (a client's traceparent
// otherwise sets the trace and, with the default parent-based sampler,
// whether the request is sampled).
func propagator(getenv func(string) string) (propagation.TextMapPropagator, error) {
	v := strings.TrimSpace(getenv("OTEL_PROPAGATORS"))
	if v == "" {
		return propagation.TraceContext{}, nil
	}
	var props []propagation.TextMapPropagator
	for _, name := range strings.Split(v, ",") {
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "tracecontext":
			props = append(props, propagation.TraceContext{})
		case "baggage":
			props = append(props, propagation.Baggage{})
		case "none":
			return nil, nil
		default:
			return nil, fmt.Errorf("OTEL_PROPAGATORS=%s: toolhost reads and sends W3C trace context only; set it to tracecontext (the default, baggage may be added), or to none to follow no client's trace context", v)
		}
	}
	return propagation.NewCompositeTextMapPropagator(props...), nil
}

// New makes a Telemetry of the SDK's providers given, as FromEnv does of
// OTLP's; either may be nil, for no traces or no metrics. Shutdown shuts
// them down. Tests and benchmarks use it with the SDK's own exporters.
func New(tp *sdktrace.TracerProvider, mp *sdkmetric.MeterProvider) (*Telemetry, error) {
	t := &Telemetry{prop: propagation.TraceContext{}}
	if tp != nil {
		t.tracer = tp.Tracer(scope)
		t.shutdown = append(t.shutdown, tp.Shutdown)
	}
	if mp != nil {
		t.shutdown = append(t.shutdown, mp.Shutdown)
		var err error
		t.duration, err = mp.Meter(scope).Float64Histogram("mcp.server.operation.duration",
			metric.WithUnit("s"),
			metric.WithDescription("MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		if err != nil {
			_ = t.Shutdown(context.Background())
			return nil, err
		}
	}
	return t, nil
}

// wanted reports whether a signal (TRACES or METRICS) is to be exported.
func wanted(getenv func(string) string, signal string) (bool, error) {
	name := "OTEL_" + signal + "_EXPORTER"
	switch v := strings.TrimSpace(getenv(name)); strings.ToLower(v) {
	case "":
		return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != "", nil
	case "otlp":
		return true, nil
	case "none":
		return false, nil
	default:
		return false, fmt.Errorf("%s=%s: toolhost exports with otlp only; set it to otlp, or to none to export no %s", name, v, strings.ToLower(signal))
	}
}

// protocol is the OTLP protocol of a signal: "grpc" or "http/protobuf".
func protocol(getenv func(string) string, signal string) (string, error) {
	name := "OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		name = "OTEL_EXPORTER_OTLP_PROTOCOL"
		v = strings.TrimSpace(getenv(name))
	}
	switch v {
	case "", "http/protobuf":
		return "http/protobuf", nil
	case "grpc":
		return "grpc", nil
	default:
		return "", fmt.Errorf("%s=%s: toolhost speaks OTLP as http/protobuf (the default) or grpc; set it to one of them", name, v)
	}
}

// traceExporter makes the OTLP span exporter of the protocol chosen.
func traceExporter(ctx context.Context, getenv func(string) string) (sdktrace.SpanExporter, error) {
	p, err := protocol(getenv, "TRACES")
	if err != nil {
		return nil, err
	}
	if p == "grpc" {
		return otlptracegrpc.New(ctx)
	}
	return otlptracehttp.New(ctx)
}

// metricExporter makes the OTLP metric exporter of the protocol chosen.
func metricExporter(ctx context.Context, getenv func(string) string) (sdkmetric.Exporter, error) {
	p, err := protocol(getenv, "METRICS")
	if err != nil {
		return nil, err
	}
	if p == "grpc" {
		return otlpmetricgrpc.New(ctx)
	}
	return otlpmetrichttp.New(ctx)
}
