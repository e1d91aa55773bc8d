package host

import (
	"os"
	"runtime/debug"
	"sync"
)

// loadGCPercent is the GC's GOGC while a config loads (see RelaxGC).
const loadGCPercent = 300

// RelaxGC makes the GC run less often, until the returned function is
// called, which restores its setting. A load and its registration with the
// SDK allocate about 150 KB a tool, nearly all of it short-lived (HCL's
// token list, the SDK's decoders); with the small heap of a new process the
// GC would run a dozen times during a 1,000-tool start and take a fifth of
// it. At GOGC=300 the heap may grow to four times what is live before a
// collection instead of twice. Against GOGC=100, GOGC=200 made the start of
// a config of 1,000 tools about 20% faster, at the price of a higher peak
// (63 MB instead of 54 MB); GOGC=300 made it 9–15% faster again (95.8 →
// 86.8 ms over 200 interleaved starts; 119 → 107 ms in the driver), with a
// peak of 64–74 MB instead of 61–65 (BENCHMARKS.md). GOGC=400 gained little
// more for a higher peak (84.3 ms; 68–83 MB). A config of a few dozen
// tools loads with no collection at all. GOGC rather than a memory limit:
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
const StartGCDelay = ballastDelay
