package hclfmt

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// quoteCases are strings that exercise each escape Quote writes: line
// breaks, tabs, quotes and backslashes; template introducers, doubled
// only before "{"; control and other non-printing characters, some past
// U+FFFF; text to put in normal form C; and bytes that are not UTF-8.
var quoteCases = []string{
	"",
	"hello",
	"a\nb\rc\td\"e\\f",
	"${x} %{if} $x %x $ % ${ %{ $${ $",
	"cost $",
	"nul\x00esc\x1bdel\x7f",
	"\u200b\u2028\u00ad\U000e0001",
	"名前 é 👍",
	"e\u0301",
	"a\xffb\xc3",
}

// TestQuoteIsHCLWrites checks Quote against hclwrite on strings that
// exercise each escape.
func TestQuoteIsHCLWrites(t *testing.T) {
	for _, s := range quoteCases {
		t.Run(fmt.Sprintf("%q", s), func(t *testing.T) {
			checkQuote(t, s)
		})
	}
}

// FuzzQuote checks Quote against hclwrite on any string.
func FuzzQuote(f *testing.F) {
	for _, s := range quoteCases {
		f.Add(s)
	}
	f.Fuzz(checkQuote)
}

// checkQuote fails t unless Quote(s) is what hclwrite writes for s and,
// when s is valid UTF-8, parses back to s in normal form C (an invalid
// byte is written as U+FFFD, as hclwrite writes it).
func checkQuote(t *testing.T, s string) {
	t.Helper()
	got := Quote(s)
	want := string(hclwrite.TokensForValue(cty.StringVal(s)).Bytes())
	if got != want {
		t.Fatalf("Quote(%q) = %s, hclwrite writes %s", s, got, want)
	}
	if !utf8.ValidString(s) {
		return
	}
	expr, diags := hclsyntax.ParseExpression([]byte(got), "q.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("Quote(%q) = %s does not parse: %s", s, got, diags)
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		t.Fatalf("Quote(%q) = %s does not evaluate: %s", s, got, diags)
	}
	if !v.RawEquals(cty.StringVal(s)) {
		t.Fatalf("Quote(%q) = %s parses back to %#v", s, got, v)
	}
}
