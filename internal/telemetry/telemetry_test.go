package telemetry

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
)

// otelVars are the variables the tests of FromEnv set (empty when a case
// does not name them), so that the environment of the test run counts
// for nothing.
var otelVars = []string{
	"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
	"OTEL_PROPAGATORS",
}

// TestFromEnv: telemetry is off unless a variable asks for an exporter,
// OTEL_SDK_DISABLED wins, each signal can be turned off, and an exporter,
// protocol or propagator toolhost lacks is an error that names the
// variable.
func TestFromEnv(t *testing.T) {
	const endpoint = "http://127.0.0.1:4318"
	for _, tc := range []struct {
		name         string
		env          map[string]string
		on, traces   bool
		metrics      bool
		wantErrAbout string
	}{
		{"unset", nil, false, false, false, ""},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, true, true, true, ""},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint + "/v1/traces"}, true, true, false, ""},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SDK_DISABLED": "true"}, false, false, false, ""},
		{"no traces", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_TRACES_EXPORTER": "none"}, true, false, true, ""},
		{"both none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}, false, false, false, ""},
		{"otlp without endpoint", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, true, false, ""},
		{"zipkin", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, false, false, "OTEL_TRACES_EXPORTER=zipkin"},
		{"http/json", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, false, false, false, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json"},
		{"propagators", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_PROPAGATORS": "tracecontext,baggage"}, true, true, true, ""},
		{"no propagation", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_PROPAGATORS": "none"}, true, true, true, ""},
		{"b3", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_PROPAGATORS": "b3"}, false, false, false, "OTEL_PROPAGATORS=b3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range otelVars {
				t.Setenv(k, tc.env[k])
			}
			tel, err := FromEnv(context.Background(), "1.0.0", nil)
			if tc.wantErrAbout != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrAbout) {
					t.Fatalf("error %v, want one about %s", err, tc.wantErrAbout)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tel.Shutdown(context.Background()) }()
			if (tel != nil) != tc.on {
				t.Fatalf("on = %v, want %v", tel != nil, tc.on)
			}
			if tel == nil {
				return
			}
			if tel.Tracing() != tc.traces || (tel.duration != nil) != tc.metrics {
				t.Errorf("traces %v metrics %v, want %v %v", tel.Tracing(), tel.duration != nil, tc.traces, tc.metrics)
			}
		})
	}
}

// TestTransport: a request of a traced call carries the traceparent of its
// client span upstream; one of a call that is not traced carries none and
// makes no span.
func TestTransport(t *testing.T) {
	got := make(chan string, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("traceparent")
	}))
	defer upstream.Close()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	client := &http.Client{Transport: Transport(http.DefaultTransport)}
	traced, parent := tp.Tracer("test").Start(context.Background(), "tools/call up")
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		traced bool
	}{{"traced", traced, true}, {"not traced", context.Background(), false}} {
		t.Run(tc.name, func(t *testing.T) {
			spans.Reset()
			req, _ := http.NewRequestWithContext(tc.ctx, http.MethodGet, upstream.URL+"/x?key=secret", nil)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			header := <-got
			if !tc.traced {
				if header != "" || len(spans.GetSpans()) != 0 {
					t.Fatalf("traceparent %q and %d spans for a call not traced", header, len(spans.GetSpans()))
				}
				return
			}
			ss := spans.GetSpans()
			if len(ss) != 1 || ss[0].Parent.SpanID() != parent.SpanContext().SpanID() {
				t.Fatalf("spans %+v, want one child of the call's", ss)
			}
			want := fmt.Sprintf("00-%s-%s-01", ss[0].SpanContext.TraceID(), ss[0].SpanContext.SpanID())
			if header != want {
				t.Errorf("traceparent %q, want %q", header, want)
			}
			for _, a := range ss[0].Attributes {
				if strings.Contains(a.Value.Emit(), "secret") {
					t.Errorf("%s = %s names the query", a.Key, a.Value.Emit())
				}
			}
		})
	}
}

// TestMetricsToolCap: past MaxToolLabels tools, calls are counted under
// OtherTool, so that the series stay bounded.
func TestMetricsToolCap(t *testing.T) {
	m := NewMetrics(nil)
	for i := range MaxToolLabels + 5 {
		m.CallStarted()
		m.CallEnded(fmt.Sprintf("tool%d", i), 0, false)
	}
	calls := scrapeMetrics(t, m)["toolhost_tool_calls_total"].GetMetric()
	if len(calls) != MaxToolLabels+1 {
		t.Fatalf("%d series, want %d", len(calls), MaxToolLabels+1)
	}
	for _, c := range calls {
		if c.GetLabel()[0].GetValue() == OtherTool && c.GetCounter().GetValue() != 5 {
			t.Errorf("%s counts %v calls, want 5", OtherTool, c.GetCounter().GetValue())
		}
	}
}

// traceService is an OTLP/gRPC trace receiver that hands on the names of
// the spans it gets.
type traceService struct {
	coltrace.UnimplementedTraceServiceServer
	names chan string
}

// Export receives one export request.
func (s *traceService) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				s.names <- sp.Name
			}
		}
	}
	return &coltrace.ExportTraceServiceResponse{}, nil
}

// TestGRPC: with OTEL_EXPORTER_OTLP_PROTOCOL=grpc, spans reach an OTLP/gRPC
// receiver on loopback, flushed by Shutdown.
func TestGRPC(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	svc := &traceService{names: make(chan string, 16)}
	gs := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(gs, svc)
	go func() { _ = gs.Serve(ln) }()
	defer gs.Stop()
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + ln.Addr().String(),
		"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"OTEL_METRICS_EXPORTER":       "none",
	}
	for _, k := range otelVars {
		t.Setenv(k, env[k])
	}
	tel, err := FromEnv(context.Background(), "1.0.0", nil)
	if err != nil || !tel.Tracing() {
		t.Fatalf("FromEnv: %v, %v", tel, err)
	}
	_, r := tel.StartRequest(context.Background(), nil, nil, "tools/call", "hello", nil, nil)
	r.End("", 0)
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-svc.names:
		if got != "tools/call hello" {
			t.Errorf("span %q, want tools/call hello", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown returned, and the receiver has no span")
	}
}

// TestHostileTraceContext: a trace context a client garbles, in _meta or
// in the headers, is ignored (the request starts a trace of its own)
// rather than failing the request; a valid one is the parent, with its
// sampled flag (the default sampler is parent-based) and its tracestate.
func TestHostileTraceContext(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	tel, err := New(tp, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()
	const trace, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	valid := "00-" + trace + "-" + parent + "-01"
	for _, tc := range []struct {
		name      string
		meta      map[string]any
		header    http.Header
		parented  bool
		recorded  bool
		wantState string
	}{
		{"valid in _meta", map[string]any{"traceparent": valid, "tracestate": "vendor=1"}, nil, true, true, "vendor=1"},
		{"not sampled", map[string]any{"traceparent": "00-" + trace + "-" + parent + "-00"}, nil, true, false, ""},
		{"garbage", map[string]any{"traceparent": "garbage"}, nil, false, true, ""},
		{"version ff", map[string]any{"traceparent": "ff-" + trace + "-" + parent + "-01"}, nil, false, true, ""},
		{"zero trace id", map[string]any{"traceparent": "00-" + strings.Repeat("0", 32) + "-" + parent + "-01"}, nil, false, true, ""},
		{"upper case", map[string]any{"traceparent": strings.ToUpper(valid)}, nil, false, true, ""},
		{"a number", map[string]any{"traceparent": 42}, nil, false, true, ""},
		{"huge tracestate", map[string]any{"traceparent": valid, "tracestate": strings.Repeat("k=v,", 1<<16)}, nil, true, true, ""},
		{"garbled header", nil, http.Header{"Traceparent": {"00-xyz"}}, false, true, ""},
		{"valid header", nil, http.Header{"Traceparent": {valid}}, true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans.Reset()
			ctx, r := tel.StartRequest(context.Background(), tc.meta, tc.header, "tools/call", "hello", nil, nil)
			sc := oteltrace.SpanContextFromContext(ctx)
			r.End("", 0)
			if got := sc.TraceID().String() == trace; got != tc.parented {
				t.Errorf("in the client's trace: %v, want %v", got, tc.parented)
			}
			if got := len(spans.GetSpans()) == 1; got != tc.recorded {
				t.Errorf("recorded: %v, want %v", got, tc.recorded)
			}
			if got := sc.TraceState().String(); got != tc.wantState {
				t.Errorf("tracestate %q, want %q", got, tc.wantState)
			}
		})
	}
}
