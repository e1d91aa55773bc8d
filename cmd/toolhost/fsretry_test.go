package main

import (
	"os"
	"testing"
	"time"
)

// busyFor is how long replaceFile and removeTree retry a file that is in
// use, as Windows editors retry a save.
const busyFor = 2 * time.Second

// replaceFile renames from over to, as an editor saves. On Windows a file
// toolhost is reading at that moment may refuse the rename for a moment
// (wine 8 refuses it while any handle is open, whatever its sharing mode),
// so it retries for busyFor, as editors do; elsewhere it tries once.
func replaceFile(t *testing.T, from, to string) {
	t.Helper()
	if err := retryBusy(func() error { return os.Rename(from, to) }); err != nil {
		t.Fatal(err)
	}
}

// removeTree removes path and what is below it, retrying for busyFor
// where a file in use refuses it (see replaceFile).
func removeTree(t *testing.T, path string) {
	t.Helper()
	if err := retryBusy(func() error { return os.RemoveAll(path) }); err != nil {
		t.Fatal(err)
	}
}

// retryBusy runs op until it succeeds, fails for another reason than a
// file in use (fileBusy), or busyFor has passed.
func retryBusy(op func() error) error {
	deadline := time.Now().Add(busyFor)
	for {
		err := op()
		if err == nil || !fileBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
