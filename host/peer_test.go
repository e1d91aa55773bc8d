package host

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordingPeer is a Peer that keeps what it is sent.
type recordingPeer struct {
	mu       sync.Mutex
	events   []string
	progress bool
}

func (p *recordingPeer) Log(ctx context.Context, level mcp.LoggingLevel, logger, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, fmt.Sprintf("log %s %s %s", level, logger, msg))
}

func (p *recordingPeer) Progress(ctx context.Context, progress, total float64, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, fmt.Sprintf("progress %g/%g %s", progress, total, msg))
}

func (p *recordingPeer) WantsProgress() bool { return p.progress }
func (p *recordingPeer) CanElicit() bool     { return false }
func (p *recordingPeer) Elicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return nil, fmt.Errorf("cannot elicit")
}

func (p *recordingPeer) snapshot() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.events...)
}

func TestCallReporterProgressGoesForward(t *testing.T) {
	peer := &recordingPeer{progress: true}
	r := newCallReporter(context.Background(), peer, "t", 0)
	r.Progress(10, 100, "a")
	r.Progress(5, 100, "back")
	r.Progress(10, 100, "same")
	r.Progress(150, 100, "past the total")
	r.Log("info", "hello")
	r.finish()
	r.Progress(200, 0, "late")
	r.Log("info", "late")
	want := []string{"progress 10/100 a", "progress 150/0 past the total", "log info t hello"}
	if got := peer.snapshot(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sent %q, want %q", got, want)
	}
}

func TestCallReporterNoProgressUnlessAsked(t *testing.T) {
	peer := &recordingPeer{}
	r := newCallReporter(context.Background(), peer, "t", time.Millisecond)
	r.Progress(1, 2, "x")
	time.Sleep(20 * time.Millisecond)
	r.finish()
	if got := peer.snapshot(); len(got) != 0 {
		t.Errorf("sent %q without a progress token", got)
	}
}

// TestCallReporterHeartbeat: a quiet call gets increasing elapsed-time
// progress; once the backend reports, heartbeats stop.
func TestCallReporterHeartbeat(t *testing.T) {
	peer := &recordingPeer{progress: true}
	r := newCallReporter(context.Background(), peer, "t", 10*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for len(peer.snapshot()) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	r.Progress(1000, 0, "real")
	n := len(peer.snapshot())
	time.Sleep(50 * time.Millisecond)
	r.finish()
	got := peer.snapshot()
	if n < 3 || len(got) != n {
		t.Fatalf("heartbeats then one real report, then nothing; got %q", got)
	}
	for _, e := range got[:n-1] {
		if !strings.Contains(e, "running for") {
			t.Errorf("heartbeat %q does not say how long", e)
		}
	}
	if got[n-1] != "progress 1000/0 real" {
		t.Errorf("last = %q", got[n-1])
	}
}

func TestRankCompletions(t *testing.T) {
	cands := []string{"paris", "Park", "park", "pasadena", "rome", "paris", "PAris"}
	tests := []struct {
		value string
		want  []string
	}{
		{"pa", []string{"paris", "park", "pasadena", "Park", "PAris"}},
		{"PA", []string{"PAris", "paris", "Park", "park", "pasadena"}},
		{"", []string{"paris", "Park", "park", "pasadena", "rome", "PAris"}},
		{"x", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got := rankCompletions(cands, tt.value)
			if strings.Join(got.Values, ",") != strings.Join(tt.want, ",") || got.Total != len(tt.want) || got.HasMore || got.Values == nil {
				t.Errorf("rankCompletions(%q) = %+v, want %q", tt.value, got, tt.want)
			}
		})
	}
	many := make([]string, 150)
	for i := range many {
		many[i] = fmt.Sprintf("v%03d", i)
	}
	got := rankCompletions(many, "v")
	if len(got.Values) != maxCompletions || got.Total != 150 || !got.HasMore {
		t.Errorf("150 candidates: %d values, total %d, hasMore %v", len(got.Values), got.Total, got.HasMore)
	}
}
