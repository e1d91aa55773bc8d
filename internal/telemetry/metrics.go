package telemetry

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MaxToolLabels is the most tool names Metrics keeps series for; calls of
// tools past it are counted under the tool label OtherTool. Tool names come
// from the config (a call of an unknown tool is counted as UnknownTool), so
// this bounds only a config with very many tools kept through reloads.
const MaxToolLabels = 1000

// Tool labels of calls that have no series of their own.
const (
	OtherTool   = "_other"
	UnknownTool = "_unknown"
)

// Metrics are the Prometheus metrics of a serve process, in a registry of
// their own, served by Handler. Client_golang's own, rather than
// OpenTelemetry's Prometheus exporter: /metrics then needs no meter
// provider, and works whether or not OTLP export is on. Labels are tool
// names and outcomes only, never arguments. Its methods are safe for
// concurrent use and do nothing on a nil Metrics.
type Metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	errors   *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	reloads  *prometheus.CounterVec

	mu    sync.Mutex
	tools sync.Map // tool name -> *toolSeries
	n     int      // entries of tools, under mu
}

// toolSeries are the series of one tool, looked up once.
type toolSeries struct {
	calls, errors prometheus.Counter
	duration      prometheus.Observer
}

// NewMetrics makes the metrics; sessions, when not nil, counts the
// sessions open at scrape time.
func NewMetrics(sessions func() int) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolhost_tool_calls_total", Help: "Tool calls answered, by tool.",
	}, []string{"tool"})
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolhost_tool_call_errors_total", Help: "Tool calls that failed (a JSON-RPC error or a result with isError), by tool.",
	}, []string{"tool"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "toolhost_tool_call_duration_seconds", Help: "How long tool calls took to answer, by tool.",
		Buckets: durationBuckets,
	}, []string{"tool"})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "toolhost_tool_calls_in_flight", Help: "Tool calls running now.",
	})
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolhost_reloads_total", Help: "Config reloads attempted, by outcome: applied, failed (the old config kept serving) or unchanged.",
	}, []string{"outcome"})
	m.reg.MustRegister(m.calls, m.errors, m.duration, m.inFlight, m.reloads,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if sessions != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "toolhost_sessions_open", Help: "MCP sessions open now.",
		}, func() float64 { return float64(sessions()) }))
	}
	for _, o := range []string{"applied", "failed", "unchanged"} {
		m.reloads.WithLabelValues(o)
	}
	return m
}

// Handler serves the metrics in the Prometheus text format (or
// OpenMetrics, as the scraper asks).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// series returns the series of tool, made on its first call while there
// are fewer than MaxToolLabels.
func (m *Metrics) series(tool string) *toolSeries {
	if s, ok := m.tools.Load(tool); ok {
		return s.(*toolSeries)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.tools.Load(tool); ok {
		return s.(*toolSeries)
	}
	label := tool
	if m.n >= MaxToolLabels && tool != UnknownTool {
		label = OtherTool
	}
	s := &toolSeries{
		calls:    m.calls.WithLabelValues(label),
		errors:   m.errors.WithLabelValues(label),
		duration: m.duration.WithLabelValues(label),
	}
	if label == tool {
		m.tools.Store(tool, s)
		m.n++
	}
	return s
}

// CallStarted counts a tool call in flight until CallEnded.
func (m *Metrics) CallStarted() {
	if m != nil {
		m.inFlight.Inc()
	}
}

// CallEnded counts a tool call that took d, and whether it failed.
func (m *Metrics) CallEnded(tool string, d time.Duration, failed bool) {
	if m == nil {
		return
	}
	m.inFlight.Dec()
	s := m.series(tool)
	s.calls.Inc()
	if failed {
		s.errors.Inc()
	}
	s.duration.Observe(d.Seconds())
}

// Reloaded counts a reload by its outcome: applied, failed or unchanged.
func (m *Metrics) Reloaded(outcome string) {
	if m != nil {
		m.reloads.WithLabelValues(outcome).Inc()
	}
}
