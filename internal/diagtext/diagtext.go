// Package diagtext renders HCL diagnostics for people: HCL's text layout
// (severity and summary, "on FILE line N, in BLOCK", the source lines, the
// detail) with a line of carets under the part of the source each one
// points at. serve, validate, fmt and a hot reload all print through it, so
// that a mistake reads the same wherever it is found.
package diagtext

import (
	"bytes"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"
	"golang.org/x/text/width"
)

// The escape sequences HCL's diagnostic writer uses in colour mode.
const (
	ansiHighlight = "\x1b[1;4m"
	ansiReset     = "\x1b[0m"
)

// Write renders diags to w with Render, in colour and wrapped to the
// terminal's width only when w is a terminal and NO_COLOR is not set.
// files are the parsed config files by name, for the source lines.
func Write(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	color, wrap := false, uint(0)
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) && os.Getenv("NO_COLOR") == "" {
		color = true
		if wd, _, err := term.GetSize(int(f.Fd())); err == nil {
			wrap = uint(wd)
		}
	}
	Render(w, files, diags, color, wrap)
}

// Render writes diagnostics as HCL's text writer does, and puts a line of
// carets under the part of the source each one points at. Colour is used
// only when color is set; wrap is the width the detail is wrapped to (0:
// none).
func Render(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, color bool, wrap uint) {
	if files == nil {
		files = map[string]*hcl.File{}
	}
	// HCL marks the subject only in colour mode, so render in colour and
	// turn the marks into carets.
	var buf bytes.Buffer
	_ = hcl.NewDiagnosticTextWriter(&buf, files, wrap, true).WriteDiagnostics(diags)
	var out strings.Builder
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		i := strings.Index(line, ansiHighlight)
		if i < 0 {
			out.WriteString(plainUnless(color, line))
			continue
		}
		rest := line[i+len(ansiHighlight):]
		j := strings.Index(rest, ansiReset)
		if j < 0 {
			out.WriteString(plainUnless(color, line))
			continue
		}
		prefix, marked := stripANSI(line[:i]), rest[:j]
		out.WriteString(plainUnless(color, line))
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n")
		}
		out.WriteString(caretLine(prefix, marked))
	}
	_, _ = io.WriteString(w, out.String())
}

// caretLine is the line under a source line that marks its part marked,
// which follows prefix: spaces (and the tabs of prefix, so that tab stops
// match) up to it, then one caret per column it takes.
func caretLine(prefix, marked string) string {
	var b strings.Builder
	for _, r := range prefix {
		switch {
		case r == '\t':
			b.WriteByte('\t')
		default:
			b.WriteString(strings.Repeat(" ", runeWidth(r)))
		}
	}
	n := 0
	for _, r := range marked {
		if r == '\t' {
			n += 4
			continue
		}
		n += runeWidth(r)
	}
	b.WriteString(strings.Repeat("^", max(n, 1)))
	b.WriteString("\n")
	return b.String()
}

// runeWidth is the number of terminal columns a rune takes: two for wide
// East Asian characters such as 北京, one otherwise.
func runeWidth(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

func plainUnless(color bool, s string) string {
	if color {
		return s
	}
	return stripANSI(s)
}

// stripANSI removes the escape sequences HCL's writer emits.
func stripANSI(s string) string {
	for _, code := range []string{ansiHighlight, ansiReset, "\x1b[31m", "\x1b[33m"} {
		s = strings.ReplaceAll(s, code, "")
	}
	return s
}
