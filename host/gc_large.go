package host

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	thcl "github.com/toolhost/toolhost/hcl"
)

// A large config is loaded under a soft memory limit (debug.SetMemoryLimit)
// proportional to its size, from the read of its files until its tools are
// registered with the SDK (Apply), or until its registry is closed.
//
// A load and a registration make much short-lived garbage, and RelaxGC
// lets the heap grow to four times what is live before a collection:
// right for a small config, whose start it speeds up, but for 10,000
// tools it made a peak RSS of 3.5 times the Go SDK's own server (issue
// 38, BENCHMARKS.md "Reload and memory at scale"). The limit makes the GC
// collect once the heap nears it, so that a large config's peak is about
// twice what it keeps live rather than four times, for more collections
// (the time is in BENCHMARKS.md). The limit is loadLimitPerByte times the
// bytes of the config files, over the heap in use when the load starts
// (the registry in service, at a reload); only a config of more than
// loadLimitFloor/loadLimitPerByte bytes (2 MiB, some 6,000 tools of
// bench's kind) gets one. The heap a load keeps live was 30 bytes for each
// byte of generated tools, so the limit stays above it and the GC never
// runs without pause. Nothing changes
// when GOGC or GOMEMLIMIT is set: whoever set them chose the GC's pacing.
const (
	loadLimitPerByte = 64
	loadLimitFloor   = 128 << 20
)

// loadLimits holds the limits of the loads under way: the lowest limit
// needed is the largest of them, and none once all are done.
var loadLimits struct {
	mu     sync.Mutex
	active map[*int64]bool
}

// limitLoad sets the memory limit for a config of the given bytes, and
// returns the function that takes it back (safe to call more than once).
func limitLoad(bytes int64) (restore func()) {
	if bytes*loadLimitPerByte <= loadLimitFloor || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	// On top of the heap in use now: during a reload, the registry in
	// service stays live beside the new one.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := int64(ms.HeapAlloc) + bytes*loadLimitPerByte
	key := &limit
	loadLimits.mu.Lock()
	if loadLimits.active == nil {
		loadLimits.active = map[*int64]bool{}
	}
	loadLimits.active[key] = true
	applyLoadLimit()
	loadLimits.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			loadLimits.mu.Lock()
			delete(loadLimits.active, key)
			applyLoadLimit()
			loadLimits.mu.Unlock()
		})
	}
}

// applyLoadLimit sets the largest limit of the loads under way, or none.
// loadLimits.mu is held.
func applyLoadLimit() {
	limit := int64(math.MaxInt64)
	if len(loadLimits.active) > 0 {
		limit = 0
		for l := range loadLimits.active {
			limit = max(limit, *l)
		}
	}
	debug.SetMemoryLimit(limit)
}

// configBytes is the total size of the config files at paths (files, or
// directories of them), as they are now; 0 for those it cannot stat.
func configBytes(paths []string) int64 {
	files, _ := thcl.ConfigFiles(paths)
	var n int64
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// releaseLoadLimit takes back the memory limit of r's load (see
// limitLoad), once its tools are registered or it is closed.
func (r *Registry) releaseLoadLimit() {
	if r != nil && r.loadLimit != nil {
		r.loadLimit()
	}
}
