//go:build unix

package host

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// floodConfig has tools whose commands flood stderr: 20,000 log lines
// (then, after a pause, one more), and 20,000 progress lines.
const floodConfig = `
tool "log_flood" {
  exec {
    command    = ["sh", "-c", "i=0; while [ $i -lt 20000 ]; do echo \"line $i\" >&2; i=$((i+1)); done; sleep 1.5; echo after >&2; echo done"]
    stderr_log = "info"
    timeout    = "60s"
  }
}
tool "progress_flood" {
  exec {
    command = ["sh", "-c", "i=1; while [ $i -le 20000 ]; do echo \"::progress $i/20000 step $i\" >&2; i=$((i+1)); done; echo done"]
    timeout = "60s"
  }
}
`

// TestLogFlood: a command that writes 20,000 stderr lines at stderr_log
// gets LogBurst of them through, then LogRate a second; once the flood
// has stopped for a second, one line says how many were dropped, at the
// level of the lines, and a line written after that goes through. The
// lines sent and the count add up to all the lines. Every one of them
// once went to the client.
func TestLogFlood(t *testing.T) {
	r := loadSource(t, floodConfig)
	peer := &recordingPeer{}
	start := time.Now()
	res, err := r.CallToolFrom(context.Background(), "log_flood", nil, peer)
	elapsed := time.Since(start)
	if err != nil || res.IsError || testconfig.ResultText(res) != "done\n" {
		t.Fatalf("call: %v %v %q", err, res != nil && res.IsError, testconfig.ResultText(res))
	}
	events := peer.snapshot()
	dropped := regexp.MustCompile(`^log info log_flood (\d+) log lines dropped: more than 20 per second \(after the first 100\)$`)
	lines, counted, summaries := 0, 0, 0
	for i, e := range events {
		if m := dropped.FindStringSubmatch(e); m != nil {
			n, _ := strconv.Atoi(m[1])
			counted += n
			summaries++
			if i != len(events)-2 {
				t.Errorf("the count is event %d of %d, want it just before the line written after the flood", i, len(events))
			}
			continue
		}
		if strings.HasPrefix(e, "log info log_flood line ") {
			lines++
		}
	}
	if max := LogBurst + int(elapsed.Seconds()*LogRate) + 1; lines > max || lines < LogBurst {
		t.Errorf("%d lines sent in %v, want %d to %d", lines, elapsed, LogBurst, max)
	}
	if summaries != 1 || lines+counted != 20000 {
		t.Errorf("%d lines sent and %d counted as dropped in %d counts, want 20,000 in one count", lines, counted, summaries)
	}
	if last := events[len(events)-1]; last != "log info log_flood after" {
		t.Errorf("last event %q, want the line written after the flood", last)
	}
}

// TestLogFloodCountAtEnd: a flood that lasts until the command exits has
// its count of dropped lines sent when the call returns, before its
// result.
func TestLogFloodCountAtEnd(t *testing.T) {
	r := loadSource(t, strings.Replace(floodConfig, "sleep 1.5; echo after >&2; ", "", 1))
	peer := &recordingPeer{}
	res, err := r.CallToolFrom(context.Background(), "log_flood", nil, peer)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res != nil && res.IsError)
	}
	events := peer.snapshot()
	if last := events[len(events)-1]; !strings.Contains(last, " log lines dropped: more than 20 per second") {
		t.Errorf("last event %q, want the count of dropped lines", last)
	}
}

// TestProgressFlood: 20,000 progress lines give at most ProgressBurst
// notifications and then one every ProgressInterval, going forward, and the last value, 20000/20000,
// arrives. Every one of them once went to the client.
func TestProgressFlood(t *testing.T) {
	r := loadSource(t, floodConfig)
	peer := &recordingPeer{progress: true}
	start := time.Now()
	res, err := r.CallToolFrom(context.Background(), "progress_flood", nil, peer)
	elapsed := time.Since(start)
	if err != nil || res.IsError || testconfig.ResultText(res) != "done\n" {
		t.Fatalf("call: %v %v %q", err, res != nil && res.IsError, testconfig.ResultText(res))
	}
	events := peer.snapshot()
	// The burst at the start, one every interval, the last at the end,
	// and the heartbeat's before the first report.
	if max := int(elapsed/ProgressInterval) + ProgressBurst + 2 + int(elapsed/DefaultHeartbeat); len(events) > max {
		t.Errorf("%d progress notifications in %v, want at most %d", len(events), elapsed, max)
	}
	if want := "progress 20000/20000 step 20000"; len(events) == 0 || events[len(events)-1] != want {
		t.Errorf("last of %d notifications is %q, want %q", len(events), events[len(events)-1:], want)
	}
	vals := peer.values()
	for i := 1; i < len(vals); i++ {
		if vals[i] <= vals[i-1] {
			t.Errorf("progress did not go forward at %d: %v", i, vals)
		}
	}
	t.Logf("%d notifications in %v", len(events), elapsed)
}
