package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestForCallsEachIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, tc := range []struct {
		name           string
		n, perWorker   int
		wantGoroutines int
	}{
		{"none", 0, 1, 1},
		{"one", 1, 1, 1},
		{"under two workers' share", 3, 2, 1},
		{"two workers", 4, 2, 2},
		{"capped by GOMAXPROCS", 100, 1, 4},
		{"zero share counts as one", 8, 0, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Workers(tc.n, tc.perWorker); got != tc.wantGoroutines {
				t.Errorf("Workers(%d, %d) = %d, want %d", tc.n, tc.perWorker, got, tc.wantGoroutines)
			}
			calls := make([]atomic.Int32, tc.n)
			For(tc.n, tc.perWorker, func(i int) { calls[i].Add(1) })
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Errorf("f(%d) was called %d times", i, c)
				}
			}
		})
	}
}

// TestForRunsSideBySide checks that the calls overlap when there are
// processors for them: each of the first two calls waits until the other
// has begun, which never happens if they run one after the other.
func TestForRunsSideBySide(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	var alone atomic.Bool
	For(2, 1, func(i int) {
		started.Done()
		select {
		case <-both:
		case <-time.After(10 * time.Second):
			alone.Store(true)
		}
	})
	if alone.Load() {
		t.Fatal("the two calls did not run at the same time")
	}
}

// TestForSequentialOnOneProcessor checks that with one processor the calls
// run in order on the caller's goroutine.
func TestForSequentialOnOneProcessor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var order []int
	For(50, 1, func(i int) { order = append(order, i) }) // no lock: one goroutine
	for i, v := range order {
		if v != i {
			t.Fatalf("call %d was f(%d); want the calls in order", i, v)
		}
	}
	if len(order) != 50 {
		t.Fatalf("%d calls, want 50", len(order))
	}
}
