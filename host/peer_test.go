package host

import (
	"context"
	"fmt"
	"sort"
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
	vals     []float64 // the progress values sent
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
	p.vals = append(p.vals, progress)
}

func (p *recordingPeer) values() []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]float64(nil), p.vals...)
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
	// Within the burst, each report that goes forward goes at once; a
	// total that was passed is no total.
	want := []string{"progress 10/100 a", "progress 150/0 past the total", "log info t hello"}
	if got := peer.snapshot(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sent %q, want %q", got, want)
	}
}

// TestCallReporterLateTimerKeepsProgress: progress held back whose time
// has come goes out before a later report, even when its timer has not
// fired yet (a loaded machine), rather than being replaced by it.
func TestCallReporterLateTimerKeepsProgress(t *testing.T) {
	peer := &recordingPeer{progress: true}
	r := newCallReporter(context.Background(), peer, "t", 0)
	var want []string
	for i := range ProgressBurst {
		r.Progress(float64(i), 100, "")
		want = append(want, fmt.Sprintf("progress %d/100 ", i))
	}
	r.Progress(50, 100, "halfway") // held back: the burst is spent
	// Two intervals have passed, and the timer that would send 50 has
	// not run: as if it were late.
	r.mu.Lock()
	r.progressFilled = r.progressFilled.Add(-2 * ProgressInterval)
	r.mu.Unlock()
	r.Progress(100, 100, "done")
	r.finish()
	want = append(want, "progress 50/100 halfway", "progress 100/100 done")
	if got := peer.snapshot(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sent %q, want %q", got, want)
	}
}

// TestCallReporterLateTimerNeverBack: a report below the one held back,
// which goes first once due, is dropped, not sent after it.
func TestCallReporterLateTimerNeverBack(t *testing.T) {
	peer := &recordingPeer{progress: true}
	r := newCallReporter(context.Background(), peer, "t", 0)
	for i := range ProgressBurst {
		r.Progress(float64(i), 100, "")
	}
	r.Progress(50, 100, "held") // held back: the burst is spent
	r.mu.Lock()
	r.progressFilled = r.progressFilled.Add(-2 * ProgressInterval)
	r.mu.Unlock()
	r.Progress(40, 100, "below the one held")
	time.Sleep(2 * ProgressInterval) // a timer armed for 40 would have fired
	r.finish()
	vals := peer.values()
	for i := 1; i < len(vals); i++ {
		if vals[i] <= vals[i-1] {
			t.Fatalf("progress went back: %v", vals)
		}
	}
	if last := vals[len(vals)-1]; last != 50 {
		t.Errorf("sent %v, want the last to be 50", vals)
	}
}

// TestCallReporterProgressBurst: the first ProgressBurst reports go at
// once; those that follow at once are coalesced into the latest, which
// goes when the call returns.
func TestCallReporterProgressBurst(t *testing.T) {
	peer := &recordingPeer{progress: true}
	r := newCallReporter(context.Background(), peer, "t", 0)
	for i := 1; i <= 3*ProgressBurst; i++ {
		r.Progress(float64(i), 0, "")
	}
	if got := len(peer.snapshot()); got != ProgressBurst {
		t.Errorf("%d notifications went at once, want %d", got, ProgressBurst)
	}
	r.finish()
	vals := peer.values()
	if len(vals) != ProgressBurst+1 || vals[len(vals)-1] != 3*ProgressBurst {
		t.Errorf("sent %v, want the first %d and then %d", vals, ProgressBurst, 3*ProgressBurst)
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

// TestCallReporterHeartbeat: a quiet call gets increasing heartbeats that
// say how long it has run, until the backend reports; the backend's first
// report goes through whatever its unit, even 0 after many heartbeats.
func TestCallReporterHeartbeat(t *testing.T) {
	for _, tc := range []struct {
		name        string
		first, then float64
		total       float64
	}{
		{"count from 1", 1, 2, 10},
		{"fraction of 1", 0.001, 0.5, 1},
		{"starts at 0", 0, 1, 100},
		{"large count", 1000, 2000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			peer := &recordingPeer{progress: true}
			r := newCallReporter(context.Background(), peer, "t", time.Millisecond)
			deadline := time.Now().Add(5 * time.Second)
			for len(peer.snapshot()) < 3 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			// The first report goes out once the progress bucket allows
			// (ProgressBurst), and stops the heartbeats.
			r.Progress(tc.first, tc.total, "one")
			for got := peer.snapshot(); !strings.HasSuffix(got[len(got)-1], " one") && time.Now().Before(deadline); got = peer.snapshot() {
				time.Sleep(time.Millisecond)
			}
			r.Progress(tc.then, tc.total, "two")
			r.finish()
			got := peer.snapshot()
			n := len(got)
			if n < 5 {
				t.Fatalf("want at least 3 heartbeats and two reports, got %q", got)
			}
			for _, e := range got[:n-2] {
				if !strings.Contains(e, "running for") {
					t.Errorf("heartbeat %q does not say how long", e)
				}
			}
			if !strings.HasSuffix(got[n-2], " one") || !strings.HasSuffix(got[n-1], " two") {
				t.Errorf("the backend's reports were dropped: last two are %q", got[n-2:])
			}
			if want := fmt.Sprintf("progress %g/%g two", tc.then, tc.total); got[n-1] != want {
				t.Errorf("last = %q, want %q", got[n-1], want)
			}
			if vals := peer.values(); !sort.Float64sAreSorted(vals) || len(vals) != n {
				t.Errorf("progress went backwards or repeated: %v", vals)
			} else {
				for i := 1; i < len(vals); i++ {
					if vals[i] <= vals[i-1] {
						t.Errorf("progress did not increase at %d: %v", i, vals)
					}
				}
			}
		})
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
