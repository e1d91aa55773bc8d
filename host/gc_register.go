package host

import (
	"os"
	"runtime/debug"

	thcl "github.com/toolhost/toolhost/hcl"
)

// registerGCPercent is the GC's GOGC from the first Apply of
// registerMany tools or more under RelaxGC until RelaxGC is restored, in
// place of loadGCPercent.
//
// The SDK's AddTool left about 35 KB of garbage per tool at the first
// Apply (its JSON decoder's buffer), several times what the tool keeps,
// until stand-ins were given a schema it does not decode (stubInput);
// a client's first tools/list of every page still adds more. At GOGC=300
// the heap of a start of 10,000 tools grew to several times what the
// config keeps live, and the GC's marks, long on a busy machine, counted
// much of the garbage made during them as live, which raised the next
// goal further. Go's default pacing there costs more collections, each of
// a small heap once the syntax trees are gone (hcl, dropTrees):
// BENCHMARKS.md, "10,000 tools in less memory", has the peak and the
// CPU of both; its round nine shows that it still lowers the peak now
// that AddTool leaves little. A reload keeps GOGC=300: its time is what its user waits for,
// and its peak was within twice the RSS before it.
const registerGCPercent = 100

// registerMany is the number of tools from which tightenGC applies: a
// config of a few hundred tools starts with few collections or none under
// GOGC=300, and the peak of its start is small.
const registerMany = 2000

// tightenGC sets registerGCPercent when n is registerMany or more (see
// setRelaxedGC).
func tightenGC(n int) {
	if n >= registerMany {
		setRelaxedGC(registerGCPercent)
	}
}

// largeLoadGCPercent is the GC's GOGC while a config of largeConfig bytes
// or more loads from scratch under RelaxGC, in place of loadGCPercent: the
// parse of such a config leaves several times its live heap as garbage
// (HCL's tokens above all), and at GOGC=300 the heap grew to about four
// times what the load kept live. 150 lowered the peak of a start of
// 10,000 tools from about 280 to 215 MB for no CPU the noise of the
// machine showed (BENCHMARKS.md).
const largeLoadGCPercent = 150

// largeConfig is the size of the config files from which a load uses
// largeLoadGCPercent: about 3,000 generated tools.
const largeConfig = 1 << 20

// tightenLoadGC sets largeLoadGCPercent when the config files of paths
// add up to largeConfig bytes or more (see setRelaxedGC). Only their sizes
// are read; a file that cannot be read is left for the load to report.
func tightenLoadGC(paths []string) {
	relaxed.mu.Lock()
	on := relaxed.n > 0
	relaxed.mu.Unlock()
	if !on {
		return
	}
	files, _ := thcl.ConfigFiles(paths)
	var size int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			size += fi.Size()
		}
	}
	if size >= largeConfig {
		setRelaxedGC(largeLoadGCPercent)
	}
}

// setRelaxedGC sets the GC's GOGC to percent when RelaxGC is in effect;
// RelaxGC's last restore sets the GC's own setting back.
func setRelaxedGC(percent int) {
	relaxed.mu.Lock()
	defer relaxed.mu.Unlock()
	if relaxed.n > 0 {
		debug.SetGCPercent(percent)
	}
}
