package telemetry

import (
	"bufio"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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

// Metrics are the Prometheus metrics of a serve process, served by
// Handler in the Prometheus text format, with the Go runtime's and the
// process's own (go_*, process_*). They are counted here and written out
// at scrape time rather than kept in client_golang's registry: importing
// client_golang costs every toolhost process, serve on stdio included, its
// package initialization (the default registry's Go and process
// collectors) at start-up, though only --listen serves /metrics. Labels
// are tool names and outcomes only, never arguments. Its methods are safe
// for concurrent use and do nothing on a nil Metrics.
type Metrics struct {
	inFlight atomic.Int64
	sessions func() int // nil: no sessions gauge
	reloads  sync.Map   // outcome -> *atomic.Uint64

	mu    sync.Mutex
	tools sync.Map // tool name -> *toolSeries
	n     int      // entries of tools, under mu
	other *toolSeries
}

// toolSeries are the series of one tool label.
type toolSeries struct {
	label         string
	calls, errors atomic.Uint64
	mu            sync.Mutex
	buckets       []uint64 // per bucket of durationBuckets, not cumulative; under mu
	sum           float64  // seconds; under mu
	count         uint64   // under mu
}

// observe adds a call of d seconds to the histogram.
func (s *toolSeries) observe(d float64) {
	i, _ := slices.BinarySearch(durationBuckets, d) // le: a value on a bound counts in its bucket
	s.mu.Lock()
	if i < len(s.buckets) {
		s.buckets[i]++
	}
	s.sum += d
	s.count++
	s.mu.Unlock()
}

// NewMetrics makes the metrics; sessions, when not nil, counts the
// sessions open at scrape time.
func NewMetrics(sessions func() int) *Metrics {
	m := &Metrics{sessions: sessions}
	for _, o := range []string{"applied", "failed", "unchanged"} {
		m.reloads.Store(o, new(atomic.Uint64))
	}
	return m
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
	if m.n >= MaxToolLabels && tool != UnknownTool {
		if m.other == nil {
			m.other = &toolSeries{label: OtherTool, buckets: make([]uint64, len(durationBuckets))}
		}
		return m.other
	}
	s := &toolSeries{label: tool, buckets: make([]uint64, len(durationBuckets))}
	m.tools.Store(tool, s)
	m.n++
	return s
}

// CallStarted counts a tool call in flight until CallEnded.
func (m *Metrics) CallStarted() {
	if m != nil {
		m.inFlight.Add(1)
	}
}

// CallEnded counts a tool call that took d, and whether it failed.
func (m *Metrics) CallEnded(tool string, d time.Duration, failed bool) {
	if m == nil {
		return
	}
	m.inFlight.Add(-1)
	s := m.series(tool)
	s.calls.Add(1)
	if failed {
		s.errors.Add(1)
	}
	s.observe(d.Seconds())
}

// Reloaded counts a reload by its outcome: applied, failed or unchanged.
func (m *Metrics) Reloaded(outcome string) {
	if m == nil {
		return
	}
	c, ok := m.reloads.Load(outcome)
	if !ok {
		c, _ = m.reloads.LoadOrStore(outcome, new(atomic.Uint64))
	}
	c.(*atomic.Uint64).Add(1)
}

// textFormat is the media type of the Prometheus text format.
const textFormat = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves the metrics in the Prometheus text format, families in
// the order of their names and series in the order of their labels.
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", textFormat)
		bw := bufio.NewWriterSize(w, 32<<10)
		e := &expo{w: bw}
		writeRuntime(e)
		writeProcess(e)
		m.write(e)
		_ = bw.Flush()
	})
}

// write writes toolhost's own families.
func (m *Metrics) write(e *expo) {
	var outcomes []string
	m.reloads.Range(func(k, _ any) bool { outcomes = append(outcomes, k.(string)); return true })
	slices.Sort(outcomes)
	e.family("toolhost_reloads_total", "counter", "Config reloads attempted, by outcome: applied, failed (the old config kept serving) or unchanged.")
	for _, o := range outcomes {
		c, _ := m.reloads.Load(o)
		e.sample("toolhost_reloads_total", "outcome", o, "", "", float64(c.(*atomic.Uint64).Load()))
	}
	if m.sessions != nil {
		e.gauge("toolhost_sessions_open", "MCP sessions open now.", float64(m.sessions()))
	}
	var tools []*toolSeries
	m.tools.Range(func(_, v any) bool { tools = append(tools, v.(*toolSeries)); return true })
	m.mu.Lock()
	if m.other != nil {
		tools = append(tools, m.other)
	}
	m.mu.Unlock()
	slices.SortFunc(tools, func(a, b *toolSeries) int { return strings.Compare(a.label, b.label) })

	const hist = "toolhost_tool_call_duration_seconds"
	e.family(hist, "histogram", "How long tool calls took to answer, by tool.")
	for _, s := range tools {
		s.mu.Lock()
		buckets, sum, count := slices.Clone(s.buckets), s.sum, s.count
		s.mu.Unlock()
		var cum uint64
		for i, le := range durationBuckets {
			cum += buckets[i]
			e.sample(hist+"_bucket", "tool", s.label, "le", formatFloat(le), float64(cum))
		}
		e.sample(hist+"_bucket", "tool", s.label, "le", "+Inf", float64(count))
		e.sample(hist+"_sum", "tool", s.label, "", "", sum)
		e.sample(hist+"_count", "tool", s.label, "", "", float64(count))
	}
	e.family("toolhost_tool_call_errors_total", "counter", "Tool calls that failed (a JSON-RPC error or a result with isError), by tool.")
	for _, s := range tools {
		e.sample("toolhost_tool_call_errors_total", "tool", s.label, "", "", float64(s.errors.Load()))
	}
	e.gauge("toolhost_tool_calls_in_flight", "Tool calls running now.", float64(m.inFlight.Load()))
	e.family("toolhost_tool_calls_total", "counter", "Tool calls answered, by tool.")
	for _, s := range tools {
		e.sample("toolhost_tool_calls_total", "tool", s.label, "", "", float64(s.calls.Load()))
	}
}

// expo writes the Prometheus text format.
type expo struct {
	w *bufio.Writer
}

// family writes the HELP and TYPE lines of a family.
func (e *expo) family(name, typ, help string) {
	e.w.WriteString("# HELP " + name + " " + helpEscaper.Replace(help) + "\n# TYPE " + name + " " + typ + "\n")
}

// sample writes one sample, with up to two labels (an empty name has
// none).
func (e *expo) sample(name, l1, v1, l2, v2 string, v float64) {
	e.w.WriteString(name)
	if l1 != "" {
		e.w.WriteString("{" + l1 + `="` + labelEscaper.Replace(v1) + `"`)
		if l2 != "" {
			e.w.WriteString("," + l2 + `="` + labelEscaper.Replace(v2) + `"`)
		}
		e.w.WriteByte('}')
	}
	e.w.WriteString(" " + formatFloat(v) + "\n")
}

// gauge writes a family of one unlabelled gauge.
func (e *expo) gauge(name, help string, v float64) {
	e.family(name, "gauge", help)
	e.sample(name, "", "", "", "", v)
}

// counter writes a family of one unlabelled counter.
func (e *expo) counter(name, help string, v float64) {
	e.family(name, "counter", help)
	e.sample(name, "", "", "", "", v)
}

// Escapers of the text format: label values escape backslash, quote and
// line feed; help texts backslash and line feed.
var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

// formatFloat writes v as the text format does: shortest form, and +Inf,
// -Inf and NaN by name.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
