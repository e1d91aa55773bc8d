package host

import "runtime/debug"

// registerGCPercent is the GC's GOGC while Apply registers registerMany
// tools or more at once under RelaxGC, in place of loadGCPercent.
//
// The SDK's AddTool leaves about 35 KB of garbage per tool at the first
// Apply (its JSON decoder's buffer; 70 KB at a reload, which cannot use
// the stand-in schemas of addToolUnlisted), several times what the tool
// keeps. At GOGC=300 the heap of a start of 10,000 tools grew to several
// times the config's live heap during the registration alone, and the GC's
// marks, long on a busy machine, counted much of that garbage as live,
// which raised the next goal further. Go's default pacing there costs
// more collections, each of a small heap once the syntax trees are gone
// (hcl, dropTrees): BENCHMARKS.md, "Reload and memory at scale", has the
// peak and the CPU of both.
const registerGCPercent = 100

// registerMany is the number of tools registered at once from which
// tightenGC applies: a config of a few hundred tools registers with no
// collection at all under GOGC=300.
const registerMany = 2000

// tightenGC sets registerGCPercent while n tools register, when n is
// registerMany or more and RelaxGC is in effect; the returned function
// sets loadGCPercent back, unless RelaxGC was restored meanwhile.
func tightenGC(n int) (restore func()) {
	if n < registerMany {
		return func() {}
	}
	relaxed.mu.Lock()
	defer relaxed.mu.Unlock()
	if relaxed.n == 0 {
		return func() {}
	}
	debug.SetGCPercent(registerGCPercent)
	return func() {
		relaxed.mu.Lock()
		defer relaxed.mu.Unlock()
		if relaxed.n > 0 {
			debug.SetGCPercent(loadGCPercent)
		}
	}
}
