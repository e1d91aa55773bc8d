package charset

import (
	"strconv"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// codePageLabels are Windows code page numbers (as GetConsoleOutputCP and
// GetACP return them) with the WHATWG label of their encoding. Where WHATWG
// merges two encodings (iso-8859-1 and us-ascii are windows-1252, gb2312 is
// gbk), the code page is decoded as WHATWG decodes it, a superset.
var codePageLabels = map[uint32]string{
	866:   "ibm866",
	874:   "windows-874",
	932:   "shift_jis",
	936:   "gbk",
	949:   "euc-kr",
	950:   "big5",
	1200:  "utf-16le",
	1201:  "utf-16be",
	1250:  "windows-1250",
	1251:  "windows-1251",
	1252:  "windows-1252",
	1253:  "windows-1253",
	1254:  "windows-1254",
	1255:  "windows-1255",
	1256:  "windows-1256",
	1257:  "windows-1257",
	1258:  "windows-1258",
	10000: "macintosh",
	10007: "x-mac-cyrillic",
	20127: "us-ascii",
	20866: "koi8-r",
	20936: "gb2312",
	21866: "koi8-u",
	28591: "iso-8859-1",
	28592: "iso-8859-2",
	28593: "iso-8859-3",
	28594: "iso-8859-4",
	28595: "iso-8859-5",
	28596: "iso-8859-6",
	28597: "iso-8859-7",
	28598: "iso-8859-8",
	28603: "iso-8859-13",
	28605: "iso-8859-15",
	38598: "iso-8859-8-i",
	50220: "iso-2022-jp",
	51932: "euc-jp",
	51949: "euc-kr",
	54936: "gb18030",
	65001: "utf-8",
}

// dosCodePages are the OEM code pages of DOS and of the Windows console
// that WHATWG has no label for: the console's code page on English (437)
// and Western European (850) Windows, among others.
var dosCodePages = map[uint32]encoding.Encoding{
	437: charmap.CodePage437,
	850: charmap.CodePage850,
	852: charmap.CodePage852,
	855: charmap.CodePage855,
	858: charmap.CodePage858,
	860: charmap.CodePage860,
	862: charmap.CodePage862,
	863: charmap.CodePage863,
	865: charmap.CodePage865,
}

// ByCodePage returns the encoding of a Windows code page number, such as
// 936 (GBK), 65001 (UTF-8), 437 or 1252; false for a code page toolhost
// cannot decode.
func ByCodePage(cp uint32) (encoding.Encoding, bool) {
	if enc, ok := dosCodePages[cp]; ok {
		return enc, true
	}
	if label, ok := codePageLabels[cp]; ok {
		return ByLabel(label)
	}
	return nil, false
}

// codePageLabel returns the encoding of a label "cpNNN" (lower case,
// trimmed) for a code page ByCodePage knows, such as "cp936" or "cp437",
// or "ibmNNN" for one of dosCodePages.
func codePageLabel(label string) (encoding.Encoding, bool) {
	num, ok := strings.CutPrefix(label, "cp")
	dosOnly := false
	if !ok {
		num, ok = strings.CutPrefix(label, "ibm")
		dosOnly = true
	}
	if !ok || num == "" || num[0] < '1' || num[0] > '9' {
		return nil, false
	}
	cp, err := strconv.ParseUint(num, 10, 32)
	if err != nil {
		return nil, false
	}
	if dosOnly {
		enc, ok := dosCodePages[uint32(cp)]
		return enc, ok
	}
	return ByCodePage(uint32(cp))
}
