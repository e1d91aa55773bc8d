package host

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzAppendTextString checks that appendTextString writes what
// json.Marshal writes for every string: escapes, control characters,
// invalid UTF-8 and U+2028/U+2029 included.
func FuzzAppendTextString(f *testing.F) {
	for _, s := range []string{"", "plain", `{"a":"<b>&c","d":[1,2]}`, "\u2028\u2029\xe2\x80", "\xe2\x80\xa8x\xe2", "tab\there\x01", "\xff\xfe", `\"\\`, "é 😀 <>&"} {
		f.Add(s, "prefix")
	}
	f.Fuzz(func(t *testing.T, s, prefix string) {
		want, _ := json.Marshal(s)
		if got := appendTextString([]byte(prefix), s); string(got) != prefix+string(want) {
			t.Fatalf("appendTextString(%q) = %s, want %s", s, got[len(prefix):], want)
		}
		// appendJSONString is given valid UTF-8 only (and, from its callers,
		// no control characters, which it still quotes as json.Marshal does).
		if utf8.ValidString(s) {
			if got := appendJSONString([]byte(prefix), []byte(s)); string(got) != prefix+string(want) {
				t.Fatalf("appendJSONString(%q) = %s, want %s", s, got[len(prefix):], want)
			}
		}
	})
}

// BenchmarkAppendTextString measures the quoting of a tool's text result:
// 2 KB of JSON (a quote every few bytes) and of prose (none).
func BenchmarkAppendTextString(b *testing.B) {
	for _, tc := range []struct{ name, s string }{
		{"json", `{"items":[` + strings.Repeat(`{"sku":"abc-123","qty":3,"price":12.5},`, 50) + `{"sku":"z"}]}`},
		{"prose", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 45)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.s)))
			buf := make([]byte, 0, 4*len(tc.s))
			for b.Loop() {
				buf = appendTextString(buf[:0], tc.s)
			}
		})
	}
}
