package host

import (
	"os"
	"runtime"
	"time"
)

// gcHeapFloor is the live heap, ballast included, that serving keeps the
// GC paced for: its heap goal is then at least twice this.
//
// The SDK decodes each message through new JSON decoders with 32 KiB
// buffers: a tools/call leaves about 70 KB of garbage, 90% of it the SDK's.
// With the small live heap of a typical config (a few MB), Go's GC would
// run every 50 or so calls and take a third of the CPU. A pointer-free
// ballast that tops the live heap up to the floor makes the GC run about
// five times less often: calls per second double at 8 and 64 in flight. It
// costs address space rather than memory (its pages are not written, so
// they stay out of RSS), and it adds to the heap goal rather than
// multiplying it as a higher GOGC would, so the heap of a large body grows
// by a constant, not a factor. A config whose live heap is already at the
// floor gets no ballast. The cost: RSS under load is about 10 MB higher,
// and the peak of a call that holds a large body is up to twice the
// ballast higher (bench/driver measures both).
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
	// initialisation cost every start about 0.1 ms): none before the
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
