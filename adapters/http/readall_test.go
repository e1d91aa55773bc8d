package http

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAll: whatever the Content-Length said, readAll reads what came,
// up to the limit, as io.ReadAll of a LimitReader does.
func TestReadAll(t *testing.T) {
	body := strings.Repeat("0123456789", 300) // 3,000 bytes
	for _, tc := range []struct {
		name        string
		hint, limit int64
		want        int
	}{
		{"unknown length", -1, 10_000, 3000},
		{"exact length", 3000, 10_000, 3000},
		{"longer than said", 1000, 10_000, 3000},
		{"shorter than said", 5000, 10_000, 3000},
		{"over the limit", 3000, 2001, 2001},
		{"over the limit, unknown length", -1, 2001, 2001},
		{"said over the read-ahead cap", maxReadHint + 1, 10_000, 3000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(iotest.HalfReader(strings.NewReader(body)), tc.hint, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want || !bytes.Equal(got, []byte(body[:tc.want])) {
				t.Errorf("read %d bytes, want the first %d", len(got), tc.want)
			}
		})
	}
}

// TestReadAllPastPooledBuffer: a body of unknown length longer than the
// pooled buffer readUnknown starts with is read whole, or up to the
// limit, and one that fits it is copied out of the buffer, which the next
// read reuses.
func TestReadAllPastPooledBuffer(t *testing.T) {
	long := strings.Repeat("abcdefghij", 5*readChunk/10) // 5 buffers
	for _, tc := range []struct {
		name  string
		body  string
		limit int64
		want  int
	}{
		{"one buffer exactly", long[:readChunk], int64(len(long)), readChunk},
		{"several buffers", long, int64(len(long)) + 1, len(long)},
		{"over the limit past the buffer", long, 3*readChunk + 7, 3*readChunk + 7},
		{"empty", "", 10, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(iotest.HalfReader(strings.NewReader(tc.body)), -1, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			again, err := readAll(strings.NewReader(strings.ToUpper(tc.body)), -1, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want || string(got) != tc.body[:tc.want] {
				t.Errorf("read %d bytes, want the first %d (a later read through the same buffer must not change them)", len(got), tc.want)
			}
			if string(again) != strings.ToUpper(tc.body[:tc.want]) {
				t.Errorf("the second read gave %d bytes, not the second body", len(again))
			}
		})
	}
}
