package testconfig

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Pids waits up to within for path to hold a whole line of process ids,
// as the tests' commands write "$$ $!" to a file, and returns them. n is
// how many the line must hold, or 0 for any number.
func Pids(t testing.TB, path string, n int, within time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if pids, ok := readPids(path, n); ok {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not hold a line of process ids after %s", path, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readPids reads the process ids in path, and whether it holds a whole
// line of n of them (any number when n is 0).
func readPids(path string, n int) ([]int, bool) {
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(string(b), "\n") {
		return nil, false
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 0 {
			return nil, false
		}
		pids = append(pids, pid)
	}
	return pids, len(pids) > 0 && (n == 0 || len(pids) == n)
}
