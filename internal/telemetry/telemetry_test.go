package telemetry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestFromEnv: telemetry is off unless a variable asks for an exporter,
// OTEL_SDK_DISABLED wins, each signal can be turned off, and an exporter
// or protocol toolhost lacks is an error that names the variable.
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
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, true, true, ""},
		{"zipkin", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, false, false, "OTEL_TRACES_EXPORTER=zipkin"},
		{"http/json", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, false, false, false, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tel, err := FromEnv(context.Background(), func(k string) string { return tc.env[k] }, "1.0.0", nil)
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
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	calls := fams["toolhost_tool_calls_total"].GetMetric()
	if len(calls) != MaxToolLabels+1 {
		t.Fatalf("%d series, want %d", len(calls), MaxToolLabels+1)
	}
	for _, c := range calls {
		if c.GetLabel()[0].GetValue() == OtherTool && c.GetCounter().GetValue() != 5 {
			t.Errorf("%s counts %v calls, want 5", OtherTool, c.GetCounter().GetValue())
		}
	}
}
