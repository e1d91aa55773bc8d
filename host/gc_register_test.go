package host

import (
	"runtime/debug"
	"testing"
)

// TestTightenGC checks that a registration of many tools under RelaxGC
// runs at registerGCPercent and goes back to loadGCPercent after, that a
// small one or one outside RelaxGC leaves the setting alone, and that a
// RelaxGC restored during the registration stays restored.
func TestTightenGC(t *testing.T) {
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
		name           string
		relaxed        bool
		n              int
		during, after  int
		restoreBetween bool
	}{
		{"many, relaxed", true, registerMany, registerGCPercent, loadGCPercent, false},
		{"few, relaxed", true, registerMany - 1, loadGCPercent, loadGCPercent, false},
		{"many, not relaxed", false, registerMany, 137, 137, false},
		{"relax restored during", true, registerMany, registerGCPercent, 137, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restoreRelax := func() {}
			if tc.relaxed {
				restoreRelax = RelaxGC()
			}
			defer restoreRelax()
			restore := tightenGC(tc.n)
			if got := gogc(); got != tc.during {
				t.Errorf("GOGC during = %d, want %d", got, tc.during)
			}
			if tc.restoreBetween {
				restoreRelax()
			}
			restore()
			if got := gogc(); got != tc.after {
				t.Errorf("GOGC after = %d, want %d", got, tc.after)
			}
		})
	}
}
