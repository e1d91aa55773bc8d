// Package linebatch batches the writes of a log to its file or pipe. A
// server logs one line per tool call; written one write(2) each, the lines
// cost more than a cheap call itself. Write copies the bytes and returns;
// a goroutine, started when there is something to write and ending when
// there is nothing more, writes what has gathered meanwhile in one go. At
// most MaxPending bytes wait: past that, Write waits for the writing to
// catch up, so that a reader that does not keep up slows the writers as a
// direct write would, instead of growing the memory.
package linebatch

import (
	"io"
	"runtime"
	"sync"
)

// MaxPending is how many bytes may wait to be written before Write waits.
const MaxPending = 256 << 10

// Writer batches writes to an io.Writer; see the package comment. Flush
// waits until everything written before it is out. Its methods are safe
// for concurrent use.
type Writer struct {
	w io.Writer

	mu       sync.Mutex
	moved    *sync.Cond // broadcast after each write to w, and when writing stops
	pending  []byte     // written to the Writer, not yet to w
	spare    []byte     // the buffer of the previous batch, for reuse
	flushing bool       // a goroutine is writing to w
}

// New returns a Writer that writes to w.
func New(w io.Writer) *Writer {
	b := &Writer{w: w}
	b.moved = sync.NewCond(&b.mu)
	return b
}

// Write queues p to be written. It returns len(p) and no error: an error
// of the underlying writer is not reported (a log has no one to report it
// to), and the bytes that met it are dropped.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	for len(b.pending) > 0 && len(b.pending)+len(p) > MaxPending {
		b.moved.Wait()
	}
	b.pending = append(b.pending, p...)
	if !b.flushing {
		b.flushing = true
		go b.flush()
	}
	b.mu.Unlock()
	return len(p), nil
}

// flush writes what is pending until nothing is. It lets the goroutines
// ready to run go first, so that the lines they are about to write (a
// server's other calls ending) go out in the same write as the line that
// started it, rather than in a write each.
func (b *Writer) flush() {
	runtime.Gosched()
	b.mu.Lock()
	for len(b.pending) > 0 {
		batch := b.pending
		b.pending = b.spare[:0]
		b.mu.Unlock()
		_, _ = b.w.Write(batch)
		b.mu.Lock()
		if cap(batch) <= MaxPending {
			b.spare = batch[:0]
		} else {
			b.spare = nil // a one-off large line: not kept
		}
		b.moved.Broadcast()
	}
	b.flushing = false
	b.moved.Broadcast()
	b.mu.Unlock()
}

// Flush waits until every byte written before it has been written to the
// underlying writer (or met its error).
func (b *Writer) Flush() {
	b.mu.Lock()
	for b.flushing {
		b.moved.Wait()
	}
	b.mu.Unlock()
}
