package testconfig

import (
	"testing"
	"time"
)

// WaitFor polls cond every few milliseconds until it holds, and fails t,
// naming what, if it does not within 15 s: what tests wait for is an
// event of milliseconds, and the deadline only bounds a failing test,
// with room for a slow machine and wine.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polls, asserts nothing
	}
}
