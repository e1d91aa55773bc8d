// Package charset finds the text encodings toolhost decodes output from,
// by the labels HTTP and HTML use or by Windows code page number, so that
// every backend's text reaches the client as UTF-8.
package charset

import (
	"fmt"
	"strings"
	"sync"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
)

// charsetLabels is the WHATWG label table (charset_table.go), built on the
// first charset lookup rather than at start-up.
//
// It replaces golang.org/x/text/encoding/htmlindex, whose package
// initialisation builds its label map and pulls in golang.org/x/text/language
// (for a function toolhost does not use): together about 0.1 ms of every
// start of every command, charsets or not (BENCHMARKS.md). The table is
// htmlindex's; TestCharsetLabelsAreHTMLIndexs checks every label against
// htmlindex.Get.
var charsetLabels = sync.OnceValue(charsetTable)

// ByLabel returns the encoding of a WHATWG encoding label such as
// "gbk", "GB2312" or " utf-8 ", matched as htmlindex.Get matches it: case
// insensitive, surrounding spaces ignored. It also knows Windows code pages
// by number, as "cp936" or "cp437", and the DOS code pages of the Windows
// console that WHATWG has no label for as "ibm437" or "ibm850".
func ByLabel(label string) (encoding.Encoding, bool) {
	label = strings.ToLower(strings.TrimSpace(label))
	if enc, ok := charsetLabels()[label]; ok {
		return enc, true
	}
	return codePageLabel(label)
}

// IsUTF8 reports whether enc is UTF-8, whose bytes need no decoding.
func IsUTF8(enc encoding.Encoding) bool {
	return enc == unicode.UTF8
}

// UnknownDetail is the detail of the diagnostic for a charset
// attribute toolhost cannot decode: shown is the value as written, and
// whose names what the charset is the encoding of.
func UnknownDetail(shown, whose string) string {
	return fmt.Sprintf("The charset is %s, which is not a charset toolhost can decode. Use a WHATWG encoding label such as \"utf-8\", \"gbk\", \"gb18030\", \"big5\", \"shift_jis\" or \"iso-8859-1\": the encoding %s.", shown, whose)
}
