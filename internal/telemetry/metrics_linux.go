//go:build linux

package telemetry

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// clockTicks is the kernel's USER_HZ, the unit of the CPU times in
// /proc/self/stat: 100 on every Linux that toolhost runs on.
const clockTicks = 100

// readProcess reads the process's figures from /proc/self.
func readProcess() processStats {
	p := processStats{cpu: -1, openFDs: -1, rss: -1, vsize: -1}
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			// Fields from the state on: utime and stime are the 12th and
			// 13th, vsize and rss (pages) the 21st and 22nd.
			f := bytes.Fields(b[i+1:])
			num := func(k int) float64 {
				if k >= len(f) {
					return -1
				}
				n, err := strconv.ParseUint(string(f[k]), 10, 64)
				if err != nil {
					return -1
				}
				return float64(n)
			}
			if ut, st := num(11), num(12); ut >= 0 && st >= 0 {
				p.cpu = (ut + st) / clockTicks
			}
			p.vsize = num(20)
			if rss := num(21); rss >= 0 {
				p.rss = rss * float64(os.Getpagesize())
			}
		}
	}
	if d, err := os.Open("/proc/self/fd"); err == nil {
		names, err := d.Readdirnames(-1)
		_ = d.Close()
		if err == nil {
			p.openFDs = float64(len(names))
		}
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		p.maxFDs = float64(lim.Cur)
	}
	return p
}
