// Package parallel runs independent pieces of one job on the processors
// that are free: a start of toolhost is otherwise one goroutine on one
// core while the others wait.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls f(i) for every i in [0, n) and returns when all calls have
// returned. The calls are spread over up to GOMAXPROCS goroutines, the
// caller's included, each taking the next i not yet taken, so that pieces
// of uneven cost still share the work; with one processor, or when n is
// under twice minPerWorker, they run in order on the caller's goroutine.
// Each worker gets minPerWorker pieces at least, so that the cost of
// starting a goroutine (and, early in a process, a thread) is spread over
// enough work. The calls must not depend on one another's order. Each
// goroutine's stack is grown before the first call (see growStack).
func For(n, minPerWorker int, f func(i int)) {
	workers := Workers(n, minPerWorker)
	if workers < 2 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			f(i)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(func() {
			growStack()
			work()
		})
	}
	growStack()
	work()
	wg.Wait()
}

// Workers is the number of goroutines For uses for n pieces: at most
// GOMAXPROCS, and no more than give each minPerWorker pieces.
func Workers(n, minPerWorker int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/max(1, minPerWorker)))
}
