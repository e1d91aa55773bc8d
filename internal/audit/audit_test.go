package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tools reads the files at paths, oldest first, and returns the tool of
// each record, failing t for a line that is not a JSON object.
func tools(t *testing.T, paths ...string) []string {
	t.Helper()
	var out []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(b) {
			var r Record
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("%s: a line is not a record (%v): %q", p, err, line)
			}
			out = append(out, r.Tool)
		}
	}
	return out
}

func rec(tool string) Record {
	return Record{Time: time.Now(), Subject: "local", Tool: tool, Arguments: json.RawMessage(`{"a":1}`), Outcome: "ok"}
}

// waitLost waits until l has lost n records.
func waitLost(t *testing.T, l *Log, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for l.Lost() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the log lost %d records, want %d", l.Lost(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLog writes records through an audit log in cases: in order, across
// its rotation, while its directory cannot be made (each record lost is
// counted and said once, and the log is written again once it can be),
// and after Close.
func TestLog(t *testing.T) {
	cases := []struct {
		name string
		max  int64
		run  func(t *testing.T, l *Log, path string)
		// want are the tools of the records in the file, wantRotated those
		// in FILE.1 (nil: none), wantLost the records lost, and warn the
		// pieces of the warnings.
		want, wantRotated []string
		wantLost          int64
		warn              []string
	}{
		{name: "in order", run: func(t *testing.T, l *Log, _ string) {
			for _, tool := range []string{"a", "b", "c"} {
				l.Write(rec(tool))
			}
		}, want: []string{"a", "b", "c"}},
		{name: "rotated", max: 300, run: func(t *testing.T, l *Log, _ string) {
			for _, tool := range []string{"a", "b", "c", "d"} {
				l.Write(rec(tool))
			}
		}, wantRotated: []string{"a", "b"}, want: []string{"c", "d"}},
		{name: "a directory in the way, then gone", run: func(t *testing.T, l *Log, path string) {
			// The file is moved away and a directory made at its path: the
			// log cannot open it again until the directory goes.
			if err := os.Rename(path, path+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			l.Write(rec("lost1"))
			l.Write(rec("lost2"))
			waitLost(t, l, 2)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			l.Write(rec("back"))
		}, want: []string{"back"}, wantLost: 2, warn: []string{"cannot write it", "1 records lost so far", "is written again; 2 records were lost", "2 records were lost in all"}},
		{name: "after close", run: func(t *testing.T, l *Log, _ string) {
			l.Write(rec("a"))
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			l.Write(rec("late"))
		}, want: []string{"a"}, wantLost: 1, warn: []string{"a record of a call of late came after the audit log was closed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit", "calls.jsonl")
			// The warnings go to a file: its writes are safe for the
			// drain goroutine.
			warn, err := os.Create(filepath.Join(t.TempDir(), "warnings"))
			if err != nil {
				t.Fatal(err)
			}
			defer warn.Close()
			l, err := Open(path, c.max, warn)
			if err != nil {
				t.Fatal(err)
			}
			c.run(t, l, path)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if got := tools(t, path); strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("records %v, want %v", got, c.want)
			}
			if c.wantRotated != nil {
				if got := tools(t, path+".1"); strings.Join(got, ",") != strings.Join(c.wantRotated, ",") {
					t.Errorf("rotated records %v, want %v", got, c.wantRotated)
				}
			}
			if l.Lost() != c.wantLost {
				t.Errorf("lost %d, want %d", l.Lost(), c.wantLost)
			}
			warned, err := os.ReadFile(warn.Name())
			if err != nil {
				t.Fatal(err)
			}
			if c.warn == nil && len(warned) != 0 {
				t.Errorf("warnings %q, want none", warned)
			}
			for _, w := range c.warn {
				if !strings.Contains(string(warned), w) {
					t.Errorf("warnings %q do not say %q", warned, w)
				}
			}
		})
	}
}

// TestLogFull fills the queue of a log whose disk does not take records:
// Write waits, then gives the record up, counted and said once; a record
// that finds room again is queued.
func TestLogFull(t *testing.T) {
	warn, err := os.Create(filepath.Join(t.TempDir(), "warnings"))
	if err != nil {
		t.Fatal(err)
	}
	defer warn.Close()
	// No drain: the disk takes nothing.
	l := &Log{path: "calls.jsonl", warn: warn, maxWait: time.Millisecond, queue: make(chan Record, 1)}
	l.Write(rec("queued"))
	l.Write(rec("lost1"))
	l.Write(rec("lost2"))
	if l.Lost() != 2 {
		t.Errorf("lost %d, want 2", l.Lost())
	}
	if got := (<-l.queue).Tool; got != "queued" {
		t.Errorf("queued %q", got)
	}
	l.Write(rec("room again"))
	if got := (<-l.queue).Tool; got != "room again" {
		t.Errorf("queued %q", got)
	}
	warned, err := os.ReadFile(warn.Name())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(warned), "\n"); n != 1 || !strings.Contains(string(warned), "1 records wait for the disk; the record of a call of lost1 is given up; 1 records lost so far") {
		t.Errorf("warnings (%d lines): %q", n, warned)
	}
}
