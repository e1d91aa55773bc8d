package host

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestTightenGC checks that a first registration of many tools under
// RelaxGC sets registerGCPercent until RelaxGC is restored, and that a
// small one, or one outside RelaxGC, leaves the setting alone.
func TestTightenGC(t *testing.T) {
	gogc := pinGC(t, 137)
	for _, tc := range []struct {
		name    string
		relaxed bool
		n       int
		during  int
	}{
		{"many, relaxed", true, registerMany, registerGCPercent},
		{"few, relaxed", true, registerMany - 1, loadGCPercent},
		{"many, not relaxed", false, registerMany, 137},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := func() {}
			if tc.relaxed {
				restore = RelaxGC()
			}
			tightenGC(tc.n)
			if got := gogc(); got != tc.during {
				t.Errorf("GOGC = %d, want %d", got, tc.during)
			}
			restore()
			if got := gogc(); got != 137 {
				t.Errorf("GOGC after RelaxGC is restored = %d, want 137", got)
			}
		})
	}
}

// TestTightenLoadGC checks that the load of a large config under RelaxGC
// runs at largeLoadGCPercent, and that of a small one at loadGCPercent.
func TestTightenLoadGC(t *testing.T) {
	gogc := pinGC(t, 137)
	dir := t.TempDir()
	small := filepath.Join(dir, "small.hcl")
	large := filepath.Join(dir, "large.hcl")
	if err := os.WriteFile(small, []byte(testconfig.Tools(1, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(large, bytes.Repeat([]byte("# padding\n"), largeConfig/10+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want int
	}{{small, loadGCPercent}, {large, largeLoadGCPercent}} {
		restore := RelaxGC()
		tightenLoadGC([]string{tc.path})
		p := gogc()
		restore()
		if p != tc.want {
			t.Errorf("GOGC loading %s = %d, want %d", filepath.Base(tc.path), p, tc.want)
		}
	}
}

// pinGC clears GOGC and GOMEMLIMIT from the environment for t, sets the
// GC's GOGC to percent until t ends, and returns a function that reads
// the GC's GOGC.
func pinGC(t *testing.T, percent int) (gogc func() int) {
	t.Helper()
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	orig := debug.SetGCPercent(percent)
	t.Cleanup(func() { debug.SetGCPercent(orig) })
	return func() int {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
}
