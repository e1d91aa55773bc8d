package host

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestRelaxGC checks that overlapping relaxations restore the GC's setting
// once, when the last is done, whatever the order, and that a restore
// called twice does not undo another's.
func TestRelaxGC(t *testing.T) {
	gogc := pinGC(t, 137)
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

// TestGCBallast checks that the ballast tops the live heap up to
// gcHeapFloor, that a live heap at the floor gets none, and that GOGC or
// GOMEMLIMIT in the environment turns it off.
//
// It runs in a process of its own: the servers of earlier tests make their
// own ballasts once they have answered enough requests, which would move
// the live heap under it.
func TestGCBallast(t *testing.T) {
	if !inOwnProcess(t) {
		return
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b := gcBallast()
	// The ballast is the floor less the heap read just before, give or
	// take what the test allocated in between (and gcBallast's own
	// collection freed).
	want := gcHeapFloor - int(ms.HeapAlloc)
	if want < 2<<20 || len(b) > want+1<<20 || len(b) < want-1<<20 {
		t.Errorf("ballast of %d bytes with %d live, want about %d", len(b), ms.HeapAlloc, want)
	}
	b = nil

	// Garbage made since the last collection is not live: a load leaves
	// up to three times the live heap of it when the ballast is made.
	// (With the GC off, no collection marks any of it live meanwhile.)
	gogc := debug.SetGCPercent(-1)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	for range 1000 {
		garbage = make([]byte, 8<<10)
	}
	garbage = nil
	b = gcBallast()
	debug.SetGCPercent(gogc)
	if len(b) < gcHeapFloor-int(ms.HeapAlloc)-1<<20 {
		t.Errorf("ballast of %d bytes with %d live and 8 MB of garbage, want about %d: the garbage counted as live",
			len(b), ms.HeapAlloc, gcHeapFloor-int(ms.HeapAlloc))
	}

	held := make([]byte, gcHeapFloor)
	runtime.GC()
	if b := gcBallast(); b != nil {
		t.Errorf("ballast of %d bytes with a live heap at the floor, want none", len(b))
	}
	runtime.KeepAlive(held)

	for env, v := range map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"} {
		os.Setenv(env, v)
		if b := gcBallast(); b != nil {
			t.Errorf("ballast of %d bytes with %s set, want none", len(b), env)
		}
		os.Unsetenv(env)
	}
}

// garbage keeps the compiler from removing TestGCBallast's allocations.
var garbage []byte

// TestBusySignal: the ballast's signal opens at the ballastAfterRequests-th
// request, not before, and further requests leave it as it is.
func TestBusySignal(t *testing.T) {
	b := newBusySignal()
	closed := func() bool {
		select {
		case <-b.busy:
			return true
		default:
			return false
		}
	}
	for i := 1; i < ballastAfterRequests; i++ {
		b.count()
	}
	if closed() {
		t.Fatalf("the signal opened after %d requests, want it at the %d-th", ballastAfterRequests-1, ballastAfterRequests)
	}
	b.count()
	if !closed() {
		t.Fatalf("the signal is not open after %d requests", ballastAfterRequests)
	}
	b.count() // closes nothing twice
	if !closed() {
		t.Fatal("the signal closed again")
	}
	if n := b.requests.Load(); n != ballastAfterRequests {
		t.Errorf("the count went on to %d once the signal was open, want it left at %d", n, ballastAfterRequests)
	}
}

// inOwnProcess runs the test t in a process of its own, with GOGC and
// GOMEMLIMIT unset, and reports false; in that process it reports true,
// and the test goes on there. A test of the GC ballast needs a heap that
// no earlier test's server has a ballast in.
func inOwnProcess(t *testing.T) bool {
	t.Helper()
	const mark = "TOOLHOST_OWN_PROCESS_TEST"
	if os.Getenv(mark) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), mark+"="+t.Name(), "GOGC=", "GOMEMLIMIT=")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s in a process of its own: %v\n%s", t.Name(), err, out)
	}
	return false
}
