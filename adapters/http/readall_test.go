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
