package host

import (
	"runtime/debug"
	"testing"
)

// TestRelaxGC checks that overlapping relaxations restore the GC's setting
// once, when the last is done, whatever the order, and that a restore
// called twice does not undo another's.
func TestRelaxGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	orig := debug.SetGCPercent(137)
	defer debug.SetGCPercent(orig)
	gogc := func() int {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	for _, tc := range []struct {
		name  string
		order []int // which restore runs at each step
	}{
		{"in order", []int{0, 1}},
		{"reverse", []int{1, 0}},
		{"twice", []int{0, 0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restores := []func(){RelaxGC(), RelaxGC()}
			if got := gogc(); got != loadGCPercent {
				t.Fatalf("GOGC while relaxed = %d, want %d", got, loadGCPercent)
			}
			for i, r := range tc.order {
				restores[r]()
				want := loadGCPercent
				if i == len(tc.order)-1 {
					want = 137
				}
				if got := gogc(); got != want {
					t.Fatalf("after step %d: GOGC = %d, want %d", i, got, want)
				}
			}
		})
	}
	t.Run("GOGC set", func(t *testing.T) {
		t.Setenv("GOGC", "50")
		restore := RelaxGC()
		if got := gogc(); got != 137 {
			t.Errorf("GOGC = %d with GOGC set in the environment, want it left at 137", got)
		}
		restore()
	})
}
