package charset

import (
	"fmt"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// TestByCodePage maps the code pages Windows consoles and ANSI code pages
// use to their encodings, and refuses those toolhost cannot decode.
func TestByCodePage(t *testing.T) {
	tests := []struct {
		cp   uint32
		want encoding.Encoding // nil: refused
	}{
		{65001, unicode.UTF8},
		{936, simplifiedchinese.GBK},
		{20936, simplifiedchinese.GBK},
		{54936, simplifiedchinese.GB18030},
		{950, traditionalchinese.Big5},
		{932, japanese.ShiftJIS},
		{51932, japanese.EUCJP},
		{50220, japanese.ISO2022JP},
		{949, korean.EUCKR},
		{437, charmap.CodePage437},
		{850, charmap.CodePage850},
		{852, charmap.CodePage852},
		{858, charmap.CodePage858},
		{866, charmap.CodePage866},
		{874, charmap.Windows874},
		{1250, charmap.Windows1250},
		{1251, charmap.Windows1251},
		{1252, charmap.Windows1252},
		{1258, charmap.Windows1258},
		{28591, charmap.Windows1252},
		{28592, charmap.ISO8859_2},
		{28605, charmap.ISO8859_15},
		{20866, charmap.KOI8R},
		{21866, charmap.KOI8U},
		{10000, charmap.Macintosh},
		{1200, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)},
		{0, nil},
		{1, nil},
		{37, nil},
		{65000, nil},
		{99999, nil},
	}
	for _, tt := range tests {
		got, ok := ByCodePage(tt.cp)
		checkFound(t, fmt.Sprintf("ByCodePage(%d)", tt.cp), got, ok, tt.want)
	}
	for cp, label := range codePageLabels {
		if _, ok := ByCodePage(cp); !ok {
			t.Errorf("code page %d: label %q is not in the WHATWG table", cp, label)
		}
	}
}

// TestByLabelCodePages: Windows code pages are named "cpNNN", and the DOS
// code pages WHATWG has no label for also "ibmNNN", in any case.
func TestByLabelCodePages(t *testing.T) {
	tests := []struct {
		label string
		want  encoding.Encoding // nil: refused
	}{
		{"cp437", charmap.CodePage437},
		{" IBM437 ", charmap.CodePage437},
		{"cp850", charmap.CodePage850},
		{"ibm858", charmap.CodePage858},
		{"cp866", charmap.CodePage866},
		{"ibm866", charmap.CodePage866},
		{"cp1252", charmap.Windows1252},
		{"cp", nil},
		{"ibm", nil},
		{"cp936", simplifiedchinese.GBK},
		{"CP65001", unicode.UTF8},
		{"cp54936", simplifiedchinese.GB18030},
		{"ibm936", nil},
		{"cp0437", nil},
		{"cp+437", nil},
		{"cp-437", nil},
		{"cp437x", nil},
		{"ibm1047", nil},
	}
	for _, tt := range tests {
		got, ok := ByLabel(tt.label)
		checkFound(t, fmt.Sprintf("ByLabel(%q)", tt.label), got, ok, tt.want)
	}
}

// checkFound checks what a lookup (call, as written in messages) found
// against want, the encoding it should find or nil when it should find
// none.
func checkFound(t *testing.T, call string, got encoding.Encoding, ok bool, want encoding.Encoding) {
	t.Helper()
	switch {
	case want == nil && ok:
		t.Errorf("%s = %v, want none", call, got)
	case want != nil && (!ok || got != want):
		t.Errorf("%s = %v, %v; want %v", call, got, ok, want)
	}
}
