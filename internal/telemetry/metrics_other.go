//go:build !unix

package telemetry

// readProcess gives none of the process's figures on this system but its
// start time, which writeProcess writes from processStart.
func readProcess() processStats {
	return processStats{cpu: -1, openFDs: -1, rss: -1, vsize: -1}
}
