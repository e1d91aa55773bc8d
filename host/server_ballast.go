package host

import (
	"os"
	"runtime"
	"time"
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

// ballastDelay is how long after the start of a session the ballast is
// made.
const ballastDelay = 200 * time.Millisecond

// gcBallast returns the ballast to hold while serving, or nil when none is
// needed or when GOGC or GOMEMLIMIT is set: whoever set them chose the
// GC's pacing.
func gcBallast() []byte {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	// The heap marked live by the last collection, as runtime/metrics'
	// /gc/heap/live:bytes reports it (used before; its package
	// initialisation slowed every start): none before the
	// first collection, and after one, HeapAlloc right after a collection
	// made here. HeapAlloc alone also counts the garbage made since the
	// last one: read right after a load, when that is up to three times
	// the live heap, it left a config of a few hundred tools without the
	// ballast (its GC ran twice as often). This runs 200 ms into a
	// session, off the path of any answer, when the GC's settings come
	// back (RelaxGC) and a collection would run anyway.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var live uint64
	if ms.NumGC > 0 {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		live = ms.HeapAlloc
	}
	if live >= gcHeapFloor-1<<20 {
		return nil
	}
	return make([]byte, gcHeapFloor-live)
}
