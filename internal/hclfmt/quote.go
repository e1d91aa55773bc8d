package hclfmt

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Quote returns s as an HCL quoted string literal whose value is exactly
// s: byte for byte what hclwrite.TokensForValue(cty.StringVal(s)) writes,
// so that no template sequence in s is ever evaluated. The text is put in
// Unicode normal form C, as cty.StringVal and HCL's parser do; a line
// break, tab, quote or backslash is written as its escape; the $ of "${"
// and the % of "%{" are doubled; any other character that does not print
// is written as a \u or \U escape. It is here, not taken from hclwrite,
// for the reason doc.go gives.
func Quote(s string) string {
	s = norm.NFC.String(s)
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i, r := range s {
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '$', '%':
			b.WriteRune(r)
			if strings.HasPrefix(s[i+1:], "{") {
				b.WriteRune(r)
			}
		default:
			switch {
			case unicode.IsPrint(r):
				b.WriteRune(r)
			case r < 0x10000:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
