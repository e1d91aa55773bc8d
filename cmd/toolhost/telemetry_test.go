package main

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP endpoint on loopback that decodes what
// exporters send it (protobuf), as a collector would.
type otlpReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics []*metricspb.Metric
	got     chan struct{} // a send after each export
}

// newOTLPReceiver starts a receiver, closed when the test ends.
func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{got: make(chan struct{}, 1)}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

// serve decodes one export request.
func (r *otlpReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf body", http.StatusBadRequest)
		return
	}
	var resp proto.Message
	r.mu.Lock()
	switch req.URL.Path {
	case "/v1/traces":
		var m coltrace.ExportTraceServiceRequest
		err = proto.Unmarshal(body, &m)
		for _, rs := range m.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		resp = &coltrace.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var m colmetrics.ExportMetricsServiceRequest
		err = proto.Unmarshal(body, &m)
		for _, rm := range m.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				r.metrics = append(r.metrics, sm.Metrics...)
			}
		}
		resp = &colmetrics.ExportMetricsServiceResponse{}
	default:
		err = io.ErrUnexpectedEOF
	}
	r.mu.Unlock()
	if err != nil {
		http.Error(w, "bad export: "+err.Error(), http.StatusBadRequest)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
	select {
	case r.got <- struct{}{}:
	default:
	}
}

// waitFor waits until ok holds for what the receiver has, checking after
// each export; the test fails after a long deadline.
func (r *otlpReceiver) waitFor(t *testing.T, what string, ok func(spans []*tracepb.Span, metrics []*metricspb.Metric) bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		r.mu.Lock()
		done := ok(r.spans, r.metrics)
		r.mu.Unlock()
		if done {
			return
		}
		select {
		case <-r.got:
		case <-deadline:
			t.Fatalf("the OTLP receiver did not get %s", what)
		}
	}
}

// spanNamed returns the span of that name, or nil.
func spanNamed(spans []*tracepb.Span, name string) *tracepb.Span {
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// childOf returns the span whose parent is parent, or nil.
func childOf(spans []*tracepb.Span, parent *tracepb.Span) *tracepb.Span {
	for _, s := range spans {
		if parent != nil && string(s.ParentSpanId) == string(parent.SpanId) && string(s.TraceId) == string(parent.TraceId) {
			return s
		}
	}
	return nil
}

// attr returns an attribute's value as a string ("" when absent).
func attr(attrs []*commonpb.KeyValue, key string) string {
	for _, kv := range attrs {
		if kv.Key != key {
			continue
		}
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue
		case *commonpb.AnyValue_IntValue:
			return strconv.FormatInt(v.IntValue, 10)
		}
	}
	return ""
}

// traceparentHeader is an http.RoundTripper that sends a fixed
// traceparent header with every request, as a traced client would.
type traceparentHeader struct{ value string }

func (h traceparentHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("traceparent", h.value)
	return http.DefaultTransport.RoundTrip(req)
}

// TestTelemetry: serve --listen, started with the OTEL_* variables naming
// an OTLP/HTTP receiver, sends a server span per request named and
// attributed after the semantic conventions for MCP, parented on the
// traceparent of _meta or else of the HTTP request, with child spans for
// an http tool's request (whose traceparent reaches the upstream) and an
// exec tool's command (with its exit code); mcp.server.operation.duration
// arrives as a histogram; and /metrics counts the calls per tool.
func TestTelemetry(t *testing.T) {
	var upMu sync.Mutex
	var upTraceparent string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upMu.Lock()
		upTraceparent = r.Header.Get("traceparent")
		upMu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(upstream.Close)
	recv := newOTLPReceiver(t)
	cfg := writeConfig(t, `
tool "hello" {
  description = "greets"
  template { text = "hello" }
}
tool "up" {
  description = "asks the upstream"
  http {
    url = "`+upstream.URL+`/status?key=secret"
  }
}
tool "fail" {
  description = "exits 3"
  exec { command = `+failCommand+` }
}
`)
	s := startHTTPServe(t, []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.URL,
		"OTEL_SERVICE_NAME=toolhost-test",
		"OTEL_BSP_SCHEDULE_DELAY=50",
		"OTEL_METRIC_EXPORT_INTERVAL=100",
	}, cfg)

	const headerTrace, newTrace = "0af7651916cd43dd8448eb211c80319c", "5af7651916cd43dd8448eb211c80319d"
	const metaTrace, metaParent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	// A client of 2025-11-25, with a session, and one of 2026-07-28,
	// without.
	ctx := context.Background()
	connect := func(version, trace string) *mcp.ClientSession {
		tr := &mcp.StreamableClientTransport{Endpoint: s.Base + "/mcp", HTTPClient: &http.Client{Transport: traceparentHeader{"00-" + trace + "-b7ad6b7169203331-01"}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	cs := connect("2025-11-25", headerTrace)
	toolText(t, cs, "hello", nil)
	toolText(t, connect("", newTrace), "hello", nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up", Meta: mcp.Meta{"traceparent": "00-" + metaTrace + "-" + metaParent + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("call up: %v %+v", err, res)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail"}); err != nil || !res.IsError {
		t.Fatalf("call fail: %v %+v", err, res)
	}

	var hello, hello2, up, get, fail, run *tracepb.Span
	recv.waitFor(t, "the spans of the four calls and their children", func(spans []*tracepb.Span, _ []*metricspb.Metric) bool {
		for _, sp := range spans {
			if sp.Name == "tools/call hello" && hex.EncodeToString(sp.TraceId) == newTrace {
				hello2 = sp
			} else if sp.Name == "tools/call hello" {
				hello = sp
			}
		}
		up, fail = spanNamed(spans, "tools/call up"), spanNamed(spans, "tools/call fail")
		get, run = childOf(spans, up), childOf(spans, fail)
		return hello != nil && hello2 != nil && get != nil && run != nil
	})
	t.Run("server spans", func(t *testing.T) {
		for _, sp := range []*tracepb.Span{hello, up, fail} {
			if sp.Kind != tracepb.Span_SPAN_KIND_SERVER {
				t.Errorf("%s: kind %v, want server", sp.Name, sp.Kind)
			}
			want := map[string]string{"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "network.transport": "tcp", "gen_ai.tool.name": strings.TrimPrefix(sp.Name, "tools/call ")}
			for k, v := range want {
				if got := attr(sp.Attributes, k); got != v {
					t.Errorf("%s: %s = %q, want %q", sp.Name, k, got, v)
				}
			}
			for _, k := range []string{"mcp.session.id", "mcp.protocol.version"} {
				if attr(sp.Attributes, k) == "" {
					t.Errorf("%s: no %s", sp.Name, k)
				}
			}
		}
		if got := attr(hello.Attributes, "mcp.protocol.version"); got != "2025-11-25" {
			t.Errorf("mcp.protocol.version %q, want 2025-11-25", got)
		}
		if got := attr(hello2.Attributes, "mcp.protocol.version"); got != "2026-07-28" {
			t.Errorf("mcp.protocol.version %q of the client without a session, want 2026-07-28", got)
		}
		if got := hex.EncodeToString(hello.TraceId); got != headerTrace {
			t.Errorf("hello's trace is %s, want %s from the traceparent header", got, headerTrace)
		}
		if got, parent := hex.EncodeToString(up.TraceId), hex.EncodeToString(up.ParentSpanId); got != metaTrace || parent != metaParent {
			t.Errorf("up's trace and parent are %s %s, want %s %s from _meta", got, parent, metaTrace, metaParent)
		}
		if got := attr(fail.Attributes, "error.type"); got != "tool_error" {
			t.Errorf("fail: error.type %q, want tool_error", got)
		}
	})
	t.Run("http client span", func(t *testing.T) {
		if get.Name != "GET" || get.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("child of up: %s %v, want GET, client", get.Name, get.Kind)
		}
		if got := attr(get.Attributes, "http.response.status_code"); got != "200" {
			t.Errorf("http.response.status_code %q", got)
		}
		if got := attr(get.Attributes, "url.full"); strings.Contains(got, "secret") || !strings.HasSuffix(got, "/status") {
			t.Errorf("url.full %q: want the URL without its query", got)
		}
		upMu.Lock()
		defer upMu.Unlock()
		want := "00-" + metaTrace + "-" + hex.EncodeToString(get.SpanId) + "-01"
		if upTraceparent != want {
			t.Errorf("the upstream got traceparent %q, want %q", upTraceparent, want)
		}
	})
	t.Run("exec span", func(t *testing.T) {
		if !strings.HasPrefix(run.Name, "exec ") {
			t.Errorf("child of fail: %q, want exec PROGRAM", run.Name)
		}
		if got := attr(run.Attributes, "process.exit.code"); got != "3" {
			t.Errorf("process.exit.code %q, want 3", got)
		}
		if run.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
			t.Errorf("status %v, want error", run.Status)
		}
	})
	t.Run("duration metric", func(t *testing.T) {
		recv.waitFor(t, "mcp.server.operation.duration for the failed call", func(_ []*tracepb.Span, metrics []*metricspb.Metric) bool {
			for _, m := range metrics {
				if m.Name != "mcp.server.operation.duration" || m.Unit != "s" {
					continue
				}
				for _, p := range m.GetHistogram().GetDataPoints() {
					if attr(p.Attributes, "gen_ai.tool.name") == "fail" && attr(p.Attributes, "error.type") == "tool_error" && p.Count >= 1 {
						return true
					}
				}
			}
			return false
		})
	})
	t.Run("/metrics", func(t *testing.T) {
		fams := scrape(t, s.Base+"/metrics", "")
		for _, c := range []struct {
			family, tool string
			want         float64
		}{
			{"toolhost_tool_calls_total", "up", 1},
			{"toolhost_tool_calls_total", "fail", 1},
			{"toolhost_tool_call_errors_total", "fail", 1},
		} {
			if got := sample(fams, c.family, "tool", c.tool); got != c.want {
				t.Errorf("%s{tool=%q} = %v, want %v", c.family, c.tool, got, c.want)
			}
		}
		if h := fams["toolhost_tool_call_duration_seconds"]; h == nil || h.GetType() != dto.MetricType_HISTOGRAM {
			t.Errorf("no histogram toolhost_tool_call_duration_seconds")
		}
		if got := sample(fams, "toolhost_sessions_open", "", ""); got < 1 {
			t.Errorf("toolhost_sessions_open = %v, want at least 1", got)
		}
		if got := sample(fams, "toolhost_tool_calls_in_flight", "", ""); got != 0 {
			t.Errorf("toolhost_tool_calls_in_flight = %v, want 0", got)
		}
	})
}

// scrape gets a /metrics page over HTTP and parses it with the Prometheus
// text parser.
func scrape(t *testing.T, url, token string) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return fams
}

// sample is the value of a counter or gauge of a family with label=value
// (any sample when label is ""), or -1.
func sample(fams map[string]*dto.MetricFamily, family, label, value string) float64 {
	for _, m := range fams[family].GetMetric() {
		match := label == ""
		for _, lp := range m.GetLabel() {
			if lp.GetName() == label && lp.GetValue() == value {
				match = true
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		}
	}
	return -1
}

// metricsAddrRE finds the address of --metrics-listen in serve's log.
var metricsAddrRE = regexp.MustCompile(`msg="serving metrics over HTTP" addr=(\S+)`)

// TestMetricsProtection: /metrics names the tools, so --listen serves it
// behind --auth-token-env's token, and not at all when the config has an
// auth block (no scraper has such a token); --metrics-listen serves it on
// a port of its own instead of on --listen.
func TestMetricsProtection(t *testing.T) {
	const token = "metrics-test-token"
	plain := "tool \"hello\" {\n  description = \"greets\"\n  template { text = \"hello\" }\n}\n"
	withAuth := "server {\n  auth {\n    jwks_url = \"https://login.example.com/jwks\"\n    audience = \"https://tools.example.com/mcp\"\n  }\n}\n" + plain
	for _, tc := range []struct {
		name      string
		config    string
		args      []string
		noToken   int // status of GET /metrics on --listen without a token
		withToken int // and with it
		ownListen bool
	}{
		{"open", plain, nil, http.StatusOK, http.StatusOK, false},
		{"token", plain, []string{"--auth-token-env", "TOOLHOST_METRICS_TOKEN"}, http.StatusUnauthorized, http.StatusOK, false},
		{"auth block", withAuth, nil, http.StatusNotFound, http.StatusNotFound, false},
		{"own port", plain, []string{"--auth-token-env", "TOOLHOST_METRICS_TOKEN", "--metrics-listen", "127.0.0.1:0"}, http.StatusNotFound, http.StatusNotFound, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startHTTPServe(t, []string{"TOOLHOST_METRICS_TOKEN=" + token}, append(tc.args, writeConfig(t, tc.config))...)
			for _, c := range []struct {
				tok  string
				want int
			}{{"", tc.noToken}, {token, tc.withToken}} {
				req, _ := http.NewRequest(http.MethodGet, s.Base+"/metrics", nil)
				if c.tok != "" {
					req.Header.Set("Authorization", "Bearer "+c.tok)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != c.want {
					t.Errorf("GET /metrics on --listen (token %v): %s, want %d", c.tok != "", resp.Status, c.want)
				}
			}
			if tc.ownListen {
				m := metricsAddrRE.FindStringSubmatch(s.Log())
				if m == nil {
					t.Fatalf("serve did not log the --metrics-listen address:\n%s", s.Log())
				}
				fams := scrape(t, "http://"+m[1]+"/metrics", "")
				if fams["toolhost_reloads_total"] == nil {
					t.Errorf("--metrics-listen serves no toolhost_reloads_total: %v", fams)
				}
			}
		})
	}
}
