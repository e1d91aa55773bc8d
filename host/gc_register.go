package host

import "runtime/debug"

// registerGCPercent is the GC's GOGC from the first Apply of
// registerMany tools or more under RelaxGC until RelaxGC is restored, in
// place of loadGCPercent.
//
// The SDK's AddTool leaves about 35 KB of garbage per tool at the first
// Apply (its JSON decoder's buffer), several times what the tool keeps,
// and a client's first tools/list of every page adds more. At GOGC=300
// the heap of a start of 10,000 tools grew to several times what the
// config keeps live, and the GC's marks, long on a busy machine, counted
// much of the garbage made during them as live, which raised the next
// goal further. Go's default pacing there costs more collections, each of
// a small heap once the syntax trees are gone (hcl, dropTrees):
// BENCHMARKS.md, "Reload and memory at scale", has the peak and the CPU
// of both. A reload keeps GOGC=300: its time is what its user waits for,
// and its peak was within twice the RSS before it.
const registerGCPercent = 100

// registerMany is the number of tools from which tightenGC applies: a
// config of a few hundred tools starts with few collections or none under
// GOGC=300, and the peak of its start is small.
const registerMany = 2000

// tightenGC sets registerGCPercent when n is registerMany or more and
// RelaxGC is in effect. RelaxGC's last restore sets the GC's own setting
// back.
func tightenGC(n int) {
	if n < registerMany {
		return
	}
	relaxed.mu.Lock()
	defer relaxed.mu.Unlock()
	if relaxed.n > 0 {
		debug.SetGCPercent(registerGCPercent)
	}
}
