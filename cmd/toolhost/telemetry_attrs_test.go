package main

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/toolhost/toolhost/bridge/bridgetest"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestTelemetryClientValues: what a client chooses reaches spans and
// metrics only where the semantic conventions for MCP put it, and as they
// type it: its JSON-RPC id as jsonrpc.request.id on the span (streamable
// HTTP and SSE); a made-up protocol version, prompt name or tool name on
// neither the span name nor the metric's attributes (each would be a series of the client's
// choosing); and the JSON-RPC error code of a failed request as the
// string rpc.response.status_code, on the span and the metric.
func TestTelemetryClientValues(t *testing.T) {
	recv := newOTLPReceiver(t)
	s := startHTTPServe(t, []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.URL,
		"OTEL_BSP_SCHEDULE_DELAY=50",
		"OTEL_METRIC_EXPORT_INTERVAL=100",
	}, writeConfig(t, "tool \"hello\" {\n  description = \"greets\"\n  template { text = \"hello\" }\n}\n"))

	resp := s.mcpPost(`{"jsonrpc":"2.0","id":"init-7","method":"initialize","params":{"protocolVersion":"1999-made-up","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`, nil, false)
	_, _ = io.Copy(io.Discard, resp.Body)
	cs := s.connect(false, nil, nil)
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "made-up-prompt"}); err == nil {
		t.Fatal("prompts/get of an unknown prompt succeeded")
	}
	_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "made-up-tool"})
	toolText(t, s.connect(true, nil, nil), "hello", nil) // over SSE

	var init, prompt *tracepb.Span
	recv.waitFor(t, "the spans of initialize and prompts/get, and the metric of prompts/get", func(spans []*tracepb.Span, metrics []*metricspb.Metric) bool {
		for _, sp := range spans {
			if sp.Name == "initialize" && attr(sp.Attributes, "jsonrpc.request.id") == "init-7" {
				init = sp
			}
		}
		prompt = spanNamed(spans, "prompts/get")
		return init != nil && prompt != nil && spanNamed(spans, "tools/call hello") != nil && metricOf(metrics, "prompts/get") != nil
	})
	recv.mu.Lock()
	defer recv.mu.Unlock()
	for _, sp := range recv.spans {
		if strings.Contains(sp.Name, "made-up") {
			t.Errorf("span %q: a name of the client's choosing", sp.Name)
		}
		if sp.Name != "notifications/initialized" && attr(sp.Attributes, "jsonrpc.request.id") == "" {
			t.Errorf("span %q has no jsonrpc.request.id", sp.Name)
		}
	}
	if got := attr(init.Attributes, "mcp.protocol.version"); got != "" {
		t.Errorf("initialize: mcp.protocol.version %q, the client's made-up version", got)
	}
	if got := attr(prompt.Attributes, "gen_ai.prompt.name"); got != "" {
		t.Errorf("prompts/get: gen_ai.prompt.name %q of an unknown prompt", got)
	}
	code := stringAttr(prompt.Attributes, "rpc.response.status_code")
	if code == "" || code != attr(prompt.Attributes, "error.type") {
		t.Errorf("prompts/get: rpc.response.status_code %q (a string), want error.type %q", code, attr(prompt.Attributes, "error.type"))
	}
	sawCode := false
	for _, m := range recv.metrics {
		for _, p := range m.GetHistogram().GetDataPoints() {
			for _, k := range []string{"mcp.protocol.version", "gen_ai.prompt.name", "gen_ai.tool.name"} {
				if v := attr(p.Attributes, k); v == "1999-made-up" || v == "made-up-prompt" || v == "made-up-tool" {
					t.Errorf("%s: %s = %q, a value of the client's choosing", m.Name, k, v)
				}
			}
			if attr(p.Attributes, "mcp.method.name") == "prompts/get" && stringAttr(p.Attributes, "rpc.response.status_code") == code {
				sawCode = true
			}
		}
	}
	if !sawCode {
		t.Errorf("no mcp.server.operation.duration point of prompts/get with rpc.response.status_code %q", code)
	}
}

// metricOf is a point of mcp.server.operation.duration of method, or nil.
func metricOf(metrics []*metricspb.Metric, method string) *metricspb.HistogramDataPoint {
	for _, m := range metrics {
		for _, p := range m.GetHistogram().GetDataPoints() {
			if m.Name == "mcp.server.operation.duration" && attr(p.Attributes, "mcp.method.name") == method {
				return p
			}
		}
	}
	return nil
}

// stringAttr is the value of a string attribute, or "" when there is none
// or it is of another type.
func stringAttr(attrs []*commonpb.KeyValue, key string) string {
	for _, kv := range attrs {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

// TestTelemetryStdio: serve over stdio traces its requests as over HTTP,
// with network.transport pipe and each call's JSON-RPC id, a string or a
// number, as jsonrpc.request.id.
func TestTelemetryStdio(t *testing.T) {
	recv := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	s := startServe(t, "--watch=false", writeConfig(t, "tool \"hello\" {\n  description = \"greets\"\n  template { text = \"hello\" }\n}\n"))
	s.initialize("2025-11-25")
	s.send(`{"jsonrpc":"2.0","id":"call-9","method":"tools/call","params":{"name":"hello"}}`)
	s.recv()
	s.send(`{"jsonrpc":"2.0","id":42,"method":"tools/list"}`)
	s.recv()
	var call, list *tracepb.Span
	recv.waitFor(t, "the spans of tools/call hello and tools/list", func(spans []*tracepb.Span, _ []*metricspb.Metric) bool {
		call, list = spanNamed(spans, "tools/call hello"), spanNamed(spans, "tools/list")
		return call != nil && list != nil
	})
	for _, c := range []struct {
		span *tracepb.Span
		id   string
	}{{call, "call-9"}, {list, "42"}} {
		if got := attr(c.span.Attributes, "jsonrpc.request.id"); got != c.id {
			t.Errorf("%s: jsonrpc.request.id %q, want %q", c.span.Name, got, c.id)
		}
		if got := attr(c.span.Attributes, "network.transport"); got != "pipe" {
			t.Errorf("%s: network.transport %q, want pipe", c.span.Name, got)
		}
	}
}

// TestMetricsReloadAuth: a reload that adds an auth block stops /metrics
// on --listen, as an auth block at start does, instead of leaving it to
// any holder of a token for /mcp.
func TestMetricsReloadAuth(t *testing.T) {
	plain := "tool \"hello\" {\n  description = \"greets\"\n  template { text = \"hello\" }\n}\n"
	cfg := writeConfig(t, plain)
	s := startHTTPServe(t, nil, cfg)
	get := func() int { return metricsStatus(t, s.Base) }
	if got := get(); got != http.StatusOK {
		t.Fatalf("GET /metrics before the reload: %d, want 200", got)
	}
	withAuth := "server {\n  auth {\n    jwks_url = \"https://login.example.com/jwks\"\n    audience = \"https://tools.example.com/mcp\"\n  }\n}\n" + plain
	if err := os.WriteFile(cfg, []byte(withAuth), 0o644); err != nil {
		t.Fatal(err)
	}
	testconfig.WaitFor(t, "the reload of the auth block", func() bool { return strings.Contains(s.Log(), "outcome=applied") })
	if got := get(); got != http.StatusNotFound {
		t.Errorf("GET /metrics after a reload added an auth block: %d, want 404", got)
	}
	if err := os.WriteFile(cfg, []byte(plain), 0o644); err != nil {
		t.Fatal(err)
	}
	testconfig.WaitFor(t, "the reload removing the auth block", func() bool { return strings.Count(s.Log(), "outcome=applied") >= 2 })
	if got := get(); got != http.StatusOK {
		t.Errorf("GET /metrics after a reload removed the auth block: %d, want 200", got)
	}
}

// metricsStatus is the status of GET /metrics on the server at base.
func metricsStatus(t *testing.T, base string) int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestMetricsAuthAtStart: with an auth block at start, /metrics on
// --listen is refused; a reload that removes the block serves it.
func TestMetricsAuthAtStart(t *testing.T) {
	plain := "tool \"hello\" {\n  description = \"greets\"\n  template { text = \"hello\" }\n}\n"
	withAuth := "server {\n  auth {\n    jwks_url = \"https://login.example.com/jwks\"\n    audience = \"https://tools.example.com/mcp\"\n  }\n}\n" + plain
	cfg := writeConfig(t, withAuth)
	s := startHTTPServe(t, nil, cfg)
	get := func() int { return metricsStatus(t, s.Base) }
	if got := get(); got != http.StatusNotFound {
		t.Fatalf("GET /metrics with an auth block at start: %d, want 404", got)
	}
	if err := os.WriteFile(cfg, []byte(plain), 0o644); err != nil {
		t.Fatal(err)
	}
	testconfig.WaitFor(t, "the reload removing the auth block", func() bool { return strings.Contains(s.Log(), "outcome=applied") })
	if got := get(); got != http.StatusOK {
		t.Errorf("GET /metrics after a reload removed the auth block: %d, want 200", got)
	}
}

// TestTelemetryPropagatorsNone: with OTEL_PROPAGATORS=none a request is
// the root of a trace of its own whatever trace context its client sends
// (in the headers or in _meta), so that no client sets the trace or the
// sampling of toolhost's spans, and no traceparent goes upstream.
func TestTelemetryPropagatorsNone(t *testing.T) {
	upTraceparent := make(chan string, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upTraceparent <- r.Header.Get("traceparent")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(upstream.Close)
	recv := newOTLPReceiver(t)
	s := startHTTPServe(t, []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.URL,
		"OTEL_BSP_SCHEDULE_DELAY=50",
		"OTEL_METRICS_EXPORTER=none",
		"OTEL_PROPAGATORS=none",
	}, writeConfig(t, "tool \"up\" {\n  description = \"asks the upstream\"\n  http { url = \""+upstream.URL+"/status\" }\n}\n"))
	const clientTrace = "0af7651916cd43dd8448eb211c80319c"
	hc := &http.Client{Transport: traceparentHeader{"00-" + clientTrace + "-b7ad6b7169203331-00"}}
	cs := s.connect(false, nil, hc)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "up", Meta: mcp.Meta{"traceparent": "00-" + clientTrace + "-00f067aa0ba902b7-01"}})
	if err != nil || res.IsError {
		t.Fatalf("call up: %v %+v", err, res)
	}
	if got := <-upTraceparent; got != "" {
		t.Errorf("the upstream got traceparent %q, want none", got)
	}
	var up *tracepb.Span
	recv.waitFor(t, "the span of tools/call up", func(spans []*tracepb.Span, _ []*metricspb.Metric) bool {
		up = spanNamed(spans, "tools/call up")
		return up != nil
	})
	if got := hex.EncodeToString(up.TraceId); got == clientTrace || len(up.ParentSpanId) != 0 {
		t.Errorf("tools/call up: trace %s, parent %x; want a trace of its own, not the client's", got, up.ParentSpanId)
	}
}

// TestTelemetryBridge: the framed bridge's calls are traced as MCP's are,
// a span tools/call NAME each, from the OTEL_* variables.
func TestTelemetryBridge(t *testing.T) {
	recv := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "100")
	ts := bridgetest.NewServer(t)
	p := startBridge(t, "--connect", ts.Addr, "--watch=false", writeConfig(t, toolConfig("alpha")))
	conn := ts.Accept()
	conn.NextRegister()
	conn.Call("a", "alpha", nil)
	conn.NextResult()
	recv.waitFor(t, "the span and metric of the bridge's call", func(spans []*tracepb.Span, metrics []*metricspb.Metric) bool {
		sp := spanNamed(spans, "tools/call alpha")
		return sp != nil && attr(sp.Attributes, "gen_ai.tool.name") == "alpha" && metricOf(metrics, "tools/call") != nil
	})
	p.stop(t)
}
