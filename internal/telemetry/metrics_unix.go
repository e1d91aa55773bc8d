//go:build unix && !linux

package telemetry

import (
	"time"

	"golang.org/x/sys/unix"
)

// readProcess reads the process's CPU time and its limit of open files;
// the rest these systems keep elsewhere than Linux's /proc.
func readProcess() processStats {
	p := processStats{cpu: -1, openFDs: -1, rss: -1, vsize: -1}
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) == nil {
		p.cpu = (time.Duration(ru.Utime.Nano()) + time.Duration(ru.Stime.Nano())).Seconds()
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil {
		p.maxFDs = float64(lim.Cur)
	}
	return p
}
