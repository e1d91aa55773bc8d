//go:build unix

package main

import (
	"syscall"
	"testing"

	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

// TestTelemetryFlushedAtExit: the spans and metrics of a serve that stops
// on SIGTERM reach the receiver before the process exits, though the
// batch and export intervals are far longer than the run.
func TestTelemetryFlushedAtExit(t *testing.T) {
	recv := newOTLPReceiver(t)
	s := startHTTPServe(t, []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.URL,
		"OTEL_BSP_SCHEDULE_DELAY=600000",
		"OTEL_METRIC_EXPORT_INTERVAL=600000",
	}, writeConfig(t, "tool \"hello\" {\n  description = \"greets\"\n  template { text = \"hello\" }\n}\n"))
	toolText(t, s.connect(false, nil, nil), "hello", nil)
	if err := s.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-s.Exited
	if s.Err != nil {
		t.Fatalf("serve exited with %v", s.Err)
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	if spanNamed(recv.spans, "tools/call hello") == nil {
		t.Errorf("no span tools/call hello after the exit; got %d spans", len(recv.spans))
	}
	if !hasMetric(recv.metrics, "mcp.server.operation.duration") {
		t.Errorf("no mcp.server.operation.duration after the exit")
	}
}

// hasMetric reports whether a metric of that name was received.
func hasMetric(metrics []*metricspb.Metric, name string) bool {
	for _, m := range metrics {
		if m.Name == name {
			return true
		}
	}
	return false
}
