// Package audit writes the audit log (serve --audit-log): one JSON
// object a line for every call of a tool not marked read-only, appended
// to a file rotated as the --log-file is (internal/logfile). Records are
// written by a goroutine of their own, so that a slow disk does not hold
// calls up; a record that cannot be written is counted and said on the
// warning writer, never dropped silently.
package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolhost/toolhost/internal/logfile"
)

// QueueLen is how many records may wait for the disk before a call's
// Write waits for room.
const QueueLen = 4096

// MaxWait is the longest Write waits for room in a full queue before it
// gives the record up (counted as lost): a disk that stalls slows calls
// down by at most this much, and does not stop them.
const MaxWait = time.Second

// Record is one audited call.
type Record struct {
	// Time is when the call began.
	Time time.Time `json:"time"`
	// Subject is who called: the verified token's subject, "local" on
	// stdio, "anonymous" over HTTP without auth.
	Subject string `json:"subject"`
	// Claims are the claims of the caller's token the operator chose
	// (--audit-claims) that the token has.
	Claims map[string]any `json:"claims,omitempty"`
	// Session is the start of the session's id, as the log shows it.
	Session string `json:"session,omitempty"`
	Tool    string `json:"tool"`
	// Arguments are the call's arguments, masked: JSON when they fit the
	// cap whole, else the text cut with a note of its length.
	Arguments any `json:"arguments"`
	// Outcome is ok, error or cancelled.
	Outcome string `json:"outcome"`
	// Error is the error text of a call that failed, masked and cut.
	Error string `json:"error,omitempty"`
	// DurationMS is how long the call took, in milliseconds.
	DurationMS float64 `json:"duration_ms"`
}

// Log is an open audit log. Its Write is safe for concurrent use.
type Log struct {
	file *logfile.File
	path string
	warn io.Writer
	// maxWait is MaxWait but in tests.
	maxWait time.Duration
	// NoCaller is the Subject of a call without a verified caller.
	NoCaller string
	// Claims are the claim names a record keeps of the caller's token.
	Claims []string

	queue chan Record
	done  chan struct{}

	mu     sync.RWMutex // held for reading by Write, for writing by Close
	closed bool

	lost    atomic.Int64
	failing atomic.Bool // the last write failed: said once until one succeeds
	full    atomic.Bool // the queue was full: said once until it has room
}

// Open opens path to append records, rotating it past maxSize bytes as
// logfile does (0 or less: logfile.DefaultMaxSize). Problems writing it
// later are said on warn.
func Open(path string, maxSize int64, warn io.Writer) (*Log, error) {
	f, err := logfile.Open(path, maxSize)
	if err != nil {
		return nil, err
	}
	l := &Log{file: f, path: f.Path(), warn: warn, maxWait: MaxWait, queue: make(chan Record, QueueLen), done: make(chan struct{})}
	go l.drain()
	return l, nil
}

// Path is the absolute path of the file.
func (l *Log) Path() string { return l.path }

// Lost is how many records could not be written so far.
func (l *Log) Lost() int64 { return l.lost.Load() }

// Write queues rec. It waits at most MaxWait for room; a record still
// without room then is lost, counted and said on the warning writer.
func (l *Log) Write(rec Record) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		l.lose(fmt.Sprintf("a record of a call of %s came after the audit log was closed", rec.Tool))
		return
	}
	select {
	case l.queue <- rec:
		if l.full.Load() {
			l.full.Store(false)
		}
		return
	default:
	}
	t := time.NewTimer(l.maxWait)
	defer t.Stop()
	select {
	case l.queue <- rec:
		l.full.Store(false)
	case <-t.C:
		if !l.full.Swap(true) {
			l.lose(fmt.Sprintf("%d records wait for the disk; the record of a call of %s is given up", cap(l.queue), rec.Tool))
			return
		}
		l.lost.Add(1)
	}
}

// drain writes the queued records until Close closes the queue.
func (l *Log) drain() {
	defer close(l.done)
	for rec := range l.queue {
		b, err := json.Marshal(rec)
		if err == nil {
			_, err = l.file.Write(append(b, '\n'))
		}
		if err != nil {
			if !l.failing.Swap(true) {
				l.lose(fmt.Sprintf("cannot write it: %s", err))
				continue
			}
			l.lost.Add(1)
			continue
		}
		if l.failing.Swap(false) {
			fmt.Fprintf(l.warn, "toolhost: the audit log %s is written again; %d records were lost in all\n", l.Path(), l.Lost())
		}
	}
}

// lose counts a record lost and says why on the warning writer.
func (l *Log) lose(why string) {
	n := l.lost.Add(1)
	fmt.Fprintf(l.warn, "toolhost: audit log %s: %s; %d records lost so far (free space or fix the file, and see the log for the calls)\n", l.Path(), why, n)
}

// Close writes the records queued, closes the file, and says how many
// records were lost, if any.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	close(l.queue)
	l.mu.Unlock()
	<-l.done
	if n := l.Lost(); n > 0 {
		fmt.Fprintf(l.warn, "toolhost: audit log %s: %d records were lost in all\n", l.Path(), n)
	}
	return l.file.Close()
}
