package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxOwnInitBytes is the most a package of toolhost may allocate in its
// package initialisation, which every start of every command pays. A
// table or a compiled pattern larger than that is made at first use
// (sync.OnceValue), as adapters/exec's tables of interpreters are
// (BENCHMARKS.md, "Start-up, the rest (issue 38, round three)").
const maxOwnInitBytes = 16 << 10

// initLine is a line of GODEBUG=inittrace=1: the package, and the bytes
// its initialisation allocated.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, \d+ allocs`)

// TestOwnInitAllocatesLittle runs toolhost version with the runtime's
// trace of package initialisation and checks that no package of toolhost
// allocates more than maxOwnInitBytes there. It checks bytes, not time,
// which a busy machine would blur.
func TestOwnInitAllocatesLittle(t *testing.T) {
	cmd := exec.Command(binPath, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("toolhost version: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || !strings.HasPrefix(m[1], "github.com/toolhost/toolhost/") || strings.Contains(m[1], "/internal/test") {
			continue
		}
		if m[1] == "github.com/toolhost/toolhost/cmd/toolhost" {
			// main has no package variables: what the trace puts on it
			// is the runtime's (on Windows it is charged 36 KB that
			// Linux does not charge it).
			continue
		}
		seen++
		n, err := strconv.Atoi(m[2])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		if n > maxOwnInitBytes {
			t.Errorf("package %s allocates %d bytes in its initialisation at every start, more than %d: build its tables and patterns at first use (sync.OnceValue) instead of in package variables", m[1], n, maxOwnInitBytes)
		}
	}
	if seen == 0 {
		t.Fatalf("toolhost version with GODEBUG=inittrace=1 traced no package of toolhost; its output:\n%s", out)
	}
}
