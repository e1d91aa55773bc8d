//go:build !unix

package exec

import "time"

// processCPU reports false: the benchmarks measure no CPU time here.
func processCPU() (time.Duration, int64, bool) { return 0, 0, false }
