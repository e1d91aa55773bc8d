package hclfmt

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/zclconf/go-cty/cty"
)

// Quote returns s as an HCL quoted string whose value is exactly s, in
// Unicode normal form C as HCL reads every string: quotes, backslashes and
// what is not printable escaped, and the $ or % that would start a
// template sequence doubled, so that nothing in s is ever evaluated.
func Quote(s string) string {
	s = cty.StringVal(s).AsString() // normal form C
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
			case r < 1<<16:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
