package bridge

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	c := &Client{MinBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second}
	for _, tc := range []struct {
		attempt int
		base    time.Duration // the delay before jitter
	}{
		{0, 100 * time.Millisecond},
		{1, 200 * time.Millisecond},
		{3, 800 * time.Millisecond},
		{5, 2 * time.Second},
		{60, 2 * time.Second},
	} {
		t.Run(tc.base.String(), func(t *testing.T) {
			seen := map[time.Duration]bool{}
			for range 200 {
				d := c.backoff(tc.attempt)
				if d < tc.base/2 || d > tc.base {
					t.Fatalf("backoff(%d) = %s, want within [%s, %s]", tc.attempt, d, tc.base/2, tc.base)
				}
				seen[d] = true
			}
			if len(seen) < 2 {
				t.Fatalf("backoff(%d) has no jitter", tc.attempt)
			}
		})
	}
}
