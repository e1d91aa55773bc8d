package linebatch

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestWriterKeepsLines: lines written from many goroutines at once, some
// larger than MaxPending, all come out of a real pipe whole, each
// goroutine's in its order, and Flush returns once they are all out.
func TestWriterKeepsLines(t *testing.T) {
	tests := []struct {
		name    string
		writers int
		lines   int
		size    int // bytes of each line's padding
	}{
		{"one writer", 1, 2000, 10},
		{"many writers", 16, 500, 40},
		{"lines past the cap", 4, 5, MaxPending + 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got := make(chan map[int][]int, 1)
			go func() {
				seen := map[int][]int{}
				sc := bufio.NewScanner(r)
				sc.Buffer(nil, 4*MaxPending)
				for sc.Scan() {
					var g, i int
					var pad string
					if _, err := fmt.Sscanf(sc.Text(), "%d %d %s", &g, &i, &pad); err != nil || len(pad) != tt.size {
						t.Errorf("a line came out broken: %.80q", sc.Text())
						continue
					}
					seen[g] = append(seen[g], i)
				}
				got <- seen
			}()
			b := New(w)
			pad := strings.Repeat("x", tt.size)
			var wg sync.WaitGroup
			for g := range tt.writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range tt.lines {
						if n, err := fmt.Fprintf(b, "%d %d %s\n", g, i, pad); err != nil || n == 0 {
							t.Errorf("Write: %d, %v", n, err)
						}
					}
				}()
			}
			wg.Wait()
			b.Flush()
			w.Close() // only after Flush: every line must be out by then
			seen := <-got
			for g := range tt.writers {
				if len(seen[g]) != tt.lines {
					t.Fatalf("writer %d: %d lines came out, want %d", g, len(seen[g]), tt.lines)
				}
				for i, n := range seen[g] {
					if n != i {
						t.Fatalf("writer %d: line %d came out as number %d", g, i, n)
					}
				}
			}
		})
	}
}

// TestFlushIdle: Flush on a Writer with nothing written returns.
func TestFlushIdle(t *testing.T) {
	New(os.Stderr).Flush()
}

// countingWriter counts the writes made to it.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	bytes  int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	c.bytes += len(p)
	return len(p), nil
}

// TestWriterGathers: lines of goroutines ready to write when a flush
// starts go out with the first line, in one write, rather than one write
// each. On one processor the flush's goroutine would otherwise run as
// soon as the first writer let go of it, before the others.
func TestWriterGathers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const writers = 8
	line := []byte("time=... level=INFO msg=\"tool call\" tool=x outcome=ok\n")
	for round := range 20 {
		c := &countingWriter{}
		b := New(c)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				<-start
				_, _ = b.Write(line)
			})
		}
		close(start)
		wg.Wait()
		b.Flush()
		if c.bytes != writers*len(line) {
			t.Fatalf("round %d: %d bytes written, want %d", round, c.bytes, writers*len(line))
		}
		if c.writes >= writers {
			t.Fatalf("round %d: %d lines went out in %d writes, want fewer writes than lines", round, writers, c.writes)
		}
	}
}
