package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestRedactHeadTail: a text is masked before it is cut, so a secret the cut
// falls inside is masked whole, at every offset; what a text already cut
// ends (or starts) with of a secret is masked, however short; and the cut
// never leaves half of a mask.
func TestRedactHeadTail(t *testing.T) {
	t.Parallel()
	secrets := []string{testconfig.CutSecret}
	for off := -2; off <= len(testconfig.CutSecret)+2; off++ {
		t.Run(fmt.Sprintf("head offset %d", off), func(t *testing.T) {
			msg := strings.Repeat("a", 100-off) + testconfig.CutSecret + " and more"
			got := redactHeadText(msg, 100, secrets, false)
			if p := testconfig.LeakedPiece(got, testconfig.CutSecret); p != "" || len(got) > 100 || strings.Contains(got, "(red") && !strings.Contains(got, "(redacted)") {
				t.Errorf("RedactHead = %q", got)
			}
		})
		t.Run(fmt.Sprintf("tail offset %d", off), func(t *testing.T) {
			msg := "before " + testconfig.CutSecret + strings.Repeat("b", 100-len(testconfig.CutSecret)+off)
			got := redactTailText(msg, 100, secrets, false)
			if p := testconfig.LeakedPiece(got, testconfig.CutSecret); p != "" || len(got) > 100 || strings.Contains(got, "acted)") && !strings.Contains(got, "(redacted)") {
				t.Errorf("RedactTail = %q", got)
			}
		})
	}
	for k := 1; k < len(testconfig.CutSecret); k++ {
		t.Run(fmt.Sprintf("cut text ends with %d bytes of a secret", k), func(t *testing.T) {
			msg := "xxxx " + testconfig.CutSecret[:k]
			if got, want := redactHeadText(msg, 100, secrets, true), "xxxx (redacted)"; got != want {
				t.Errorf("RedactHead = %q, want %q", got, want)
			}
			if got := redactHeadText(msg, 100, secrets, false); got != msg {
				t.Errorf("RedactHead of a whole text = %q, want it as it is", got)
			}
		})
		t.Run(fmt.Sprintf("cut text starts with %d bytes of a secret", k), func(t *testing.T) {
			msg := testconfig.CutSecret[len(testconfig.CutSecret)-k:] + " xxxx"
			if got, want := redactTailText(msg, 100, secrets, true), "(redacted) xxxx"; got != want {
				t.Errorf("RedactTail = %q, want %q", got, want)
			}
		})
	}
	for _, tc := range []struct{ msg, want string }{
		{"push failed for ghp_aB3dE", "push failed for (redacted)"},
		{"npm ERR! //registry.example.com/:_authToken=0f", "npm ERR! //registry.example.com/:(redacted)"},
		{"token eyJhbGciOi", "token (redacted)"},
		{"no token here, just words", "no token here, just words"},
		{"ghp_ then words", "ghp_ then words"},
	} {
		t.Run("a cut text ends with the start of a token: "+tc.msg, func(t *testing.T) {
			if got := redactHeadText(tc.msg, 100, nil, true); got != tc.want {
				t.Errorf("RedactHead = %q, want %q", got, tc.want)
			}
			if got := redactHeadText(tc.msg, 100, nil, false); got != tc.msg {
				t.Errorf("RedactHead of a whole text = %q, want it as it is", got)
			}
		})
	}
	t.Run("a secret longer than the lookahead", func(t *testing.T) {
		long := strings.Repeat("Q7w", MaxLookahead)
		msg := strings.Repeat("a", 50) + long
		got := redactHeadText(msg, 100, []string{long}, false)
		if got != strings.Repeat("a", 50)+"(redacted)" {
			t.Errorf("RedactHead = %.200q", got)
		}
	})
	t.Run("a token of a known format", func(t *testing.T) {
		tok := "ghp_" + strings.Repeat("x1Y2", 10)
		for off := 1; off < len(tok); off += 5 {
			got := redactHeadText(strings.Repeat("a ", 50-off/2)+tok+" end", 100, nil, false)
			if strings.Contains(got, "ghp_") || strings.Contains(got, "x1Y2") {
				t.Errorf("offset %d: RedactHead = %q", off, got)
			}
		}
	})
}

// redactHeadText is the text of RedactHead.
func redactHeadText(msg string, n int, secrets []string, cut bool) string {
	s, _ := RedactHead(msg, n, secrets, cut)
	return s
}

// redactTailText is the text of RedactTail.
func redactTailText(msg string, n int, secrets []string, cut bool) string {
	s, _ := RedactTail(msg, n, secrets, cut)
	return s
}
