package charset

import (
	"testing"

	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
)

// TestCharsetLabelsAreHTMLIndexs checks the label table against
// golang.org/x/text/encoding/htmlindex, which it was generated from: every
// label gives the same encoding, in any case and with spaces around it,
// and every one of htmlindex's 40 encodings is reachable. When x/text is
// upgraded and this fails, regenerate charset_table.go from the new
// htmlindex tables.
func TestCharsetLabelsAreHTMLIndexs(t *testing.T) {
	table := charsetTable()
	if len(table) != charsetLabelCount {
		t.Fatalf("%d labels, want %d", len(table), charsetLabelCount)
	}
	canonical := map[string]bool{}
	for label, enc := range table {
		want, err := htmlindex.Get(label)
		if err != nil {
			t.Errorf("%q: htmlindex does not know it: %v", label, err)
			continue
		}
		if enc != want {
			t.Errorf("%q: %v, htmlindex has %v", label, enc, want)
		}
		for _, variant := range []string{label, " " + label + "\t", upper(label)} {
			if got, ok := ByLabel(variant); !ok || got != want {
				t.Errorf("charsetByLabel(%q) = %v, %v; want %v", variant, got, ok, want)
			}
		}
		name, err := htmlindex.Name(enc)
		if err != nil {
			t.Errorf("%q: htmlindex has no name for its encoding: %v", label, err)
		}
		canonical[name] = true
		if IsUTF8(enc) != (name == "utf-8") {
			t.Errorf("%q: isUTF8 = %v for %s", label, IsUTF8(enc), name)
		}
	}
	if len(canonical) != 40 {
		t.Errorf("%d encodings reachable, htmlindex has 40", len(canonical))
	}
	for _, label := range []string{"", "utf-9", "gbk2", "x-unknown", "latin"} {
		_, err := htmlindex.Get(label)
		if _, ok := ByLabel(label); ok || err == nil {
			t.Errorf("%q: charsetByLabel ok=%v, htmlindex error %v; both should refuse it", label, ok, err)
		}
	}
	if !IsUTF8(unicode.UTF8) {
		t.Error("isUTF8(unicode.UTF8) is false")
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
