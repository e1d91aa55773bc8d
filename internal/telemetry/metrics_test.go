package telemetry

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrapeMetrics gets m's page and parses it with the Prometheus parser.
func scrapeMetrics(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != textFormat {
		t.Errorf("Content-Type %q, want %q", ct, textFormat)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// TestMetricsExposition: what /metrics writes parses as the Prometheus
// text format, with the counts of the calls made, a cumulative histogram,
// labels escaped, and the runtime's and the process's families.
func TestMetricsExposition(t *testing.T) {
	m := NewMetrics(func() int { return 3 })
	odd := "say \"hi\"\\\n"
	for _, c := range []struct {
		tool   string
		d      time.Duration
		failed bool
	}{
		{"a", 5 * time.Millisecond, false},
		{"a", 20 * time.Millisecond, true}, // on a bound: in its bucket
		{"a", 400 * time.Second, false},    // past the last bound
		{odd, time.Second, false},
	} {
		m.CallStarted()
		m.CallEnded(c.tool, c.d, c.failed)
	}
	m.CallStarted()
	m.Reloaded("applied")
	m.Reloaded("applied")
	fams := scrapeMetrics(t, m)

	find := func(fam, label, value string) *dto.Metric {
		for _, s := range fams[fam].GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return s
				}
			}
		}
		t.Fatalf("no %s{%s=%q}", fam, label, value)
		return nil
	}
	for _, c := range []struct {
		fam, label, value string
		want              float64
	}{
		{"toolhost_tool_calls_total", "tool", "a", 3},
		{"toolhost_tool_calls_total", "tool", odd, 1},
		{"toolhost_tool_call_errors_total", "tool", "a", 1},
		{"toolhost_tool_call_errors_total", "tool", odd, 0},
		{"toolhost_reloads_total", "outcome", "applied", 2},
		{"toolhost_reloads_total", "outcome", "failed", 0},
	} {
		t.Run(c.fam+"/"+c.value, func(t *testing.T) {
			if got := find(c.fam, c.label, c.value).GetCounter().GetValue(); got != c.want {
				t.Errorf("%v, want %v", got, c.want)
			}
		})
	}
	t.Run("histogram", func(t *testing.T) {
		h := find("toolhost_tool_call_duration_seconds", "tool", "a").GetHistogram()
		if h.GetSampleCount() != 3 || h.GetSampleSum() < 400 {
			t.Errorf("count %d, sum %v", h.GetSampleCount(), h.GetSampleSum())
		}
		want := map[float64]uint64{0.01: 1, 0.02: 2, 0.05: 2, 300: 2}
		for _, b := range h.GetBucket() {
			if w, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != w {
				t.Errorf("le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), w)
			}
		}
		if len(h.GetBucket()) != len(durationBuckets)+1 { // and +Inf
			t.Errorf("%d buckets, want %d", len(h.GetBucket()), len(durationBuckets)+1)
		}
	})
	gauges := map[string]float64{"toolhost_tool_calls_in_flight": 1, "toolhost_sessions_open": 3}
	for name, want := range gauges {
		if got := fams[name].GetMetric()[0].GetGauge().GetValue(); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	present := []string{"go_goroutines", "go_info", "go_memstats_alloc_bytes", "go_threads", "process_start_time_seconds"}
	if runtime.GOOS == "linux" {
		present = append(present, "process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds", "process_max_fds", "process_virtual_memory_bytes")
	}
	for _, name := range present {
		if ms := fams[name].GetMetric(); len(ms) == 0 {
			t.Errorf("no %s", name)
		}
	}
	if rss := fams["process_resident_memory_bytes"].GetMetric(); runtime.GOOS == "linux" && rss[0].GetGauge().GetValue() < 1<<20 {
		t.Errorf("process_resident_memory_bytes = %v, want the process's", rss[0].GetGauge().GetValue())
	}
}
