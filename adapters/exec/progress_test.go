package exec

import (
	"sync"
	"testing"

	"github.com/toolhost/toolhost/adapters"
	"github.com/zclconf/go-cty/cty"
)

// recorder is a Reporter that keeps what it is told, in order.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) Log(level, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, "log "+level+" "+msg)
}

func (r *recorder) Progress(progress, total float64, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, "progress "+cty.NumberFloatVal(progress).AsBigFloat().Text('g', -1)+"/"+cty.NumberFloatVal(total).AsBigFloat().Text('g', -1)+" "+message)
}

var _ adapters.Reporter = (*recorder)(nil)

func TestParseProgress(t *testing.T) {
	tests := []struct {
		in              string
		progress, total float64
		msg             string
		ok              bool
	}{
		{"40/100 Downloading", 40, 100, "Downloading", true},
		{"40/100", 40, 100, "", true},
		{"  7 step seven ", 7, 0, "step seven", true},
		{"55% almost", 55, 100, "almost", true},
		{"2.5/10", 2.5, 10, "", true},
		{"-1/10", 0, 0, "", false},
		{"5/0", 0, 0, "", false},
		{"abc", 0, 0, "", false},
		{"", 0, 0, "", false},
		{"NaN", 0, 0, "", false},
		{"1/Inf", 0, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, total, msg, ok := ParseProgress(tt.in)
			if ok != tt.ok || (ok && (p != tt.progress || total != tt.total || msg != tt.msg)) {
				t.Errorf("ParseProgress(%q) = %v, %v, %q, %v; want %v, %v, %q, %v", tt.in, p, total, msg, ok, tt.progress, tt.total, tt.msg, tt.ok)
			}
		})
	}
}
