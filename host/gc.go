package host

import (
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// loadGCPercent is the GC's GOGC while a config loads (see RelaxGC).
const loadGCPercent = 300

// RelaxGC makes the GC run less often, until the returned function is
// called, which restores its setting. A load and its registration with the
// SDK allocate much, nearly all of it short-lived (HCL's token list, the
// SDK's decoders); with the small heap of a new process the GC would run
// many times during a large config's start and take a good part of it. At
// GOGC=300 the heap may grow to four times what is live before a
// collection instead of twice. GOGC=200 made the start of a large config
// faster than GOGC=100, and GOGC=300 faster again, each for a higher peak
// of memory; GOGC=400 gained little more for a higher peak still (the
// figures are in BENCHMARKS.md: "What was changed for speed" and "The GC
// during a load"). A config of a few dozen tools loads with no collection
// at all. GOGC rather than a memory limit:
// a limit below what a large config keeps live would make the GC run
// without pause. Nothing changes when GOGC or GOMEMLIMIT is set: whoever
// set them chose the GC's pacing.
//
// Calls may overlap (a reload during the first moments of a start): the
// setting is restored when the last of them is done. Calling restore more
// than once does nothing more.
func RelaxGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	relaxed.mu.Lock()
	if relaxed.n == 0 {
		relaxed.percent = debug.SetGCPercent(loadGCPercent)
	}
	relaxed.n++
	relaxed.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			relaxed.mu.Lock()
			defer relaxed.mu.Unlock()
			if relaxed.n--; relaxed.n == 0 {
				debug.SetGCPercent(relaxed.percent)
			}
		})
	}
}

// relaxed counts the RelaxGC calls not yet restored, and keeps the GOGC to
// restore.
var relaxed struct {
	mu      sync.Mutex
	n       int
	percent int
}

// StartGCDelay is how long after a start serve keeps the GC relaxed (see
// RelaxGC): long enough to answer the client's first requests without a
// collection in their way.
const StartGCDelay = 200 * time.Millisecond
