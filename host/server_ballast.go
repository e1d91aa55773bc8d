package host

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// gcHeapFloor is the live heap, ballast included, that serving keeps the
// GC paced for: its heap goal is then at least twice this.
//
// The SDK decodes each message through new JSON decoders with large
// buffers: a tools/call leaves garbage, most of it the SDK's. With the
// small live heap of a typical config, Go's GC would run every few dozen
// calls and take a large share of the CPU. A pointer-free ballast that
// tops the live heap up to the floor makes the GC run several times less
// often, and calls under load run faster for it (BENCHMARKS.md). It
// costs address space rather than memory (its pages are not written, so
// they stay out of RSS), and it adds to the heap goal rather than
// multiplying it as a higher GOGC would, so the heap of a large body grows
// by a constant, not a factor. A config whose live heap is already at the
// floor gets no ballast. The cost: RSS under load is higher, and so is
// the peak of a call that holds a large body, by up to twice the ballast
// (bench/driver measures both).
const gcHeapFloor = 12 << 20

// gcBallast returns the ballast to hold while serving, or nil when none is
// needed or when GOGC or GOMEMLIMIT is set: whoever set them chose the
// GC's pacing.
func gcBallast() []byte {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	// The heap marked live by the last collection, as runtime/metrics'
	// /gc/heap/live:bytes reports it (used before; its package
	// initialisation slowed every start): none before the first
	// collection, and after one, HeapAlloc right after a collection made
	// here. HeapAlloc alone also counts the garbage made since the last
	// one: read right after a load, when that is up to three times the
	// live heap, it left a config of a few hundred tools without the
	// ballast (its GC ran twice as often).
	//
	// The collection made here also returns the freed pages to the system
	// (debug.FreeOSMemory). The ballast raises the heap goal, and the
	// runtime keeps freed pages resident up to about that goal: the
	// garbage of a load made under RelaxGC's higher GOGC stayed in RSS for
	// good (BENCHMARKS.md, round twelve of issue 38).
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var live uint64
	if ms.NumGC > 0 {
		debug.FreeOSMemory()
		runtime.ReadMemStats(&ms)
		live = ms.HeapAlloc
	}
	if live >= gcHeapFloor-1<<20 {
		return nil
	}
	return make([]byte, gcHeapFloor-live)
}

// holdBallastWhen makes the GC ballast once start yields or is closed, and
// keeps it until release is called.
func holdBallastWhen[T any](start <-chan T) (release func()) {
	stop := make(chan struct{})
	held := make(chan []byte, 1)
	go func() {
		var ballast []byte
		select {
		case <-start:
			ballast = gcBallast()
		case <-stop:
		}
		held <- ballast
	}()
	return func() {
		close(stop)
		runtime.KeepAlive(<-held)
	}
}

// ballastAfterRequests is how many MCP requests a server answers before it
// makes its GC ballast. A server that sees a few requests now and then (an
// editor's session, most of the time) does not need one; under load the
// SDK's decoders leave garbage with every request, and the ballast makes
// the GC run several times less often (BENCHMARKS.md, "HTTP (issue 38)").
// Making it costs a full collection, which is better not spent in the
// first moments of a server, when a reload or the first requests may be
// under way.
const ballastAfterRequests = 500

// busySignal counts the MCP requests a server answers, and closes busy at
// the ballastAfterRequests-th: the GC ballast is made then (see
// holdBallastWhen).
type busySignal struct {
	requests atomic.Int64
	busy     chan struct{}
}

// newBusySignal returns a busySignal that has counted no request.
func newBusySignal() *busySignal {
	return &busySignal{busy: make(chan struct{})}
}

// count counts a request. Once the signal is open it only reads the
// count: the requests of a busy server do not all write one cache line.
func (b *busySignal) count() {
	if b.requests.Load() >= ballastAfterRequests {
		return
	}
	if b.requests.Add(1) == ballastAfterRequests {
		close(b.busy)
	}
}
