//go:build unix

package exec

import (
	"syscall"
	"time"
)

// processCPU is the user and system time of the process so far, and how
// often its threads gave up the CPU to wait (voluntary context switches).
func processCPU() (time.Duration, int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Nvcsw, true
}
