package testserver

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Shared is the one server that the tests of a test binary share, started
// by the first test that asks for it and stopped when the binary's
// TestMain has run its tests.
type Shared[S Closer] struct {
	inMain  atomic.Bool
	once    sync.Once
	started atomic.Bool
	server  S
	err     error
}

// Closer is a server that Close stops and removes.
type Closer interface{ Close() error }

// Main runs run (a TestMain's m.Run) and then closes the server, if a
// test started it, and returns run's exit code.
func (sh *Shared[S]) Main(run func() int) int {
	sh.inMain.Store(true)
	code := run()
	if sh.started.Load() {
		_ = sh.server.Close()
	}
	return code
}

// Own returns the server that start makes for t, closed in t.Cleanup; it
// fails t if start fails.
func Own[S Closer](t testing.TB, start func() (S, error)) S {
	t.Helper()
	s, err := start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// Get returns the shared server, starting it the first time. A test whose
// package's TestMain does not go through Main fails, with mainCall, the
// line that TestMain needs, in the message; a test asking for a server
// that failed to start fails with start's error.
func (sh *Shared[S]) Get(t testing.TB, mainCall string, start func() (S, error)) S {
	t.Helper()
	if !sh.inMain.Load() {
		t.Fatalf("a shared test server is stopped by the package's TestMain, which has to be: func TestMain(m *testing.M) { os.Exit(%s) }", mainCall)
	}
	sh.once.Do(func() {
		sh.server, sh.err = start()
		sh.started.Store(sh.err == nil)
	})
	if sh.err != nil {
		t.Fatal(sh.err)
	}
	return sh.server
}
