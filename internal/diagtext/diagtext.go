// Package diagtext renders HCL diagnostics for people: HCL's text layout
// (severity and summary, "on FILE line N, in BLOCK", the source lines, the
// detail) with a line of carets under the part of the source each one
// points at. serve, validate, fmt and a hot reload all print through it, so
// that a mistake reads the same wherever it is found.
package diagtext

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"
	"golang.org/x/text/width"

	"github.com/toolhost/toolhost/internal/linebreak"
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
	if len(diags) > 0 {
		files = displayView(files)
	}
	// HCL marks the subject only in colour mode, so render in colour and
	// turn the marks into carets.
	var buf bytes.Buffer
	lines := map[string]*lineIndex{}
	for _, d := range diags {
		writeDiagnostic(&buf, files, lines, d, wrap)
	}
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

// displayView returns files with the files whose text HCL's diagnostic
// writer would show wrongly replaced by copies it shows right, or files
// itself when there are none. Each copy has the same length, so that every
// byte offset holds.
//
//   - Lone CRs (a CR that no LF follows): HCL's parser reads one as an
//     invalid character on the line it ends, and its diagnostic writer,
//     which numbers the source lines it shows, counts it as a line break.
//     In a file that also has LFs, each lone CR becomes a space, so that
//     the numbers the writer shows are the parser's, those of the
//     diagnostics. A native-syntax file with no LF at all (saved for
//     classic Mac OS) is one line to the parser, and gets LFs in place of
//     its CRs: its one diagnostic (hcl.ExplainSyntaxErrors) is on its first
//     line, and the writer shows that line rather than the whole file
//     (which it scanned again for every diagnostic: minutes for a few
//     diagnostics in a file of tens of kilobytes).
//   - A file that is not text to a terminal (UTF-16, or binary: see
//     unreadable) gets no text: the writer shows no source lines for it,
//     rather than NULs and stray bytes.
//   - In other files, control characters (a NUL in a string, an ESC or a
//     BEL in a binary file that passed for text, a C1 control such as
//     U+009B) become "?", one for each byte: the source lines go to a
//     terminal, which would act on them.
func displayView(files map[string]*hcl.File) map[string]*hcl.File {
	var view map[string]*hcl.File
	for name, f := range files {
		if f == nil {
			continue
		}
		binary := unreadable(f.Bytes)
		if !binary && !linebreak.HasLoneCR(f.Bytes) && !hasControls(f.Bytes) {
			continue
		}
		if view == nil {
			view = make(map[string]*hcl.File, len(files))
			for k, v := range files {
				view[k] = v
			}
		}
		copied := *f
		if binary {
			copied.Bytes = nil
		} else {
			eol := byte(' ')
			if bytes.IndexByte(f.Bytes, '\n') < 0 && !strings.HasSuffix(name, ".json") {
				eol = '\n'
			}
			src := bytes.Clone(f.Bytes)
			for i, c := range src {
				switch {
				case linebreak.LoneCRAt(src, i):
					src[i] = eol
				case isControl(c):
					src[i] = '?'
				case isC1At(src, i):
					src[i], src[i+1] = '?', '?'
				}
			}
			copied.Bytes = src
		}
		view[name] = &copied
	}
	if view == nil {
		return files
	}
	return view
}

// unreadable reports whether src is not text that a terminal can show: it
// starts with a UTF-16 byte order mark, or a quarter or more of its first
// 512 bytes are NULs (UTF-16 without a mark, where ASCII text has one
// every other byte; most binary files). A NUL or two in a string or a
// comment of a UTF-8 config do not count.
func unreadable(src []byte) bool {
	if bytes.HasPrefix(src, []byte{0xFF, 0xFE}) || bytes.HasPrefix(src, []byte{0xFE, 0xFF}) {
		return true
	}
	head := src[:min(len(src), 512)]
	return len(head) > 0 && bytes.Count(head, []byte{0})*4 >= len(head)
}

// isControl reports whether c is an ASCII control character other than a
// tab, a line feed or a carriage return.
func isControl(c byte) bool {
	return c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7F
}

// isC1At reports whether src holds, at offset i, a C1 control character
// (U+0080 to U+009F, two bytes in UTF-8), which some terminals act on as
// ESC sequences: U+009B is a CSI.
func isC1At(src []byte, i int) bool {
	return src[i] == 0xC2 && i+1 < len(src) && src[i+1] >= 0x80 && src[i+1] <= 0x9F
}

// hasControls reports whether src has a control character (isControl,
// isC1At).
func hasControls(src []byte) bool {
	for i, c := range src {
		if isControl(c) || isC1At(src, i) {
			return true
		}
	}
	return false
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

// visibleFormat reports whether r is one of the format characters that
// terminals show in a column of its own (as wcwidth counts them): the
// soft hyphen and the Arabic signs that stand before numbers.
func visibleFormat(r rune) bool {
	switch {
	case r == '\u00AD', r >= 0x0600 && r <= 0x0605, r == 0x06DD, r == 0x070F, r == 0x0890, r == 0x0891, r == 0x08E2, r == 0x110BD, r == 0x110CD:
		return true
	}
	return false
}

// runeWidth is the number of terminal columns a rune takes: two for wide
// East Asian characters such as 北京, none for combining marks and format
// characters (a byte order mark, a zero-width space), one otherwise.
func runeWidth(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) && !visibleFormat(r) {
		return 0
	}
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

// writeDiagnostic writes d as HCL's diagnostic writer does, in colour.
//
// HCL's writer finds the source lines to show by scanning the file from its
// start, line by line, with a new grapheme scanner (and its buffer) for
// each line: a diagnostic costs a scan of every line before it, and a large
// config with the same mistake in each of its tools took tens of seconds to
// print. So the writer is given a window instead: the file from the first
// line shown, with the diagnostic's byte offsets moved to match. Its line and column
// numbers are left alone (the writer reads only byte offsets from them),
// and the line numbers the writer puts before the source lines, counted
// from the window's start, are moved back. The output is the same, byte for
// byte; when anything about d or its file is unusual, the whole file is
// used, as before.
func writeDiagnostic(buf *bytes.Buffer, files map[string]*hcl.File, lines map[string]*lineIndex, d *hcl.Diagnostic, wrap uint) {
	if d != nil && d.Subject != nil {
		name := d.Subject.Filename
		if f := files[name]; f != nil && f.Bytes != nil && (d.Context == nil || d.Context.Filename == name) {
			idx := lines[name]
			if idx == nil {
				idx = newLineIndex(f.Bytes)
				lines[name] = idx
			}
			if writeWindowed(buf, f, idx, d, wrap) {
				return
			}
		}
	}
	_ = hcl.NewDiagnosticTextWriter(buf, files, wrap, true).WriteDiagnostic(d)
}

// writeWindowed writes d as writeDiagnostic describes, and reports false,
// having written nothing, when it cannot.
func writeWindowed(buf *bytes.Buffer, f *hcl.File, idx *lineIndex, d *hcl.Diagnostic, wrap uint) bool {
	src := f.Bytes
	inFile := func(r *hcl.Range) bool {
		return 0 <= r.Start.Byte && r.Start.Byte <= r.End.Byte && r.End.Byte <= len(src)
	}
	if !inFile(d.Subject) || d.Context != nil && !inFile(d.Context) {
		return false
	}
	start, end := d.Subject.Start.Byte, d.Subject.End.Byte
	if d.Context != nil {
		start, end = min(start, d.Context.Start.Byte), max(end, d.Context.End.Byte)
	}
	// The window starts at the line that holds start, and ends after the
	// line that follows the one holding end+1 (the writer shows an empty
	// range as one byte, and a line that a range ends just before).
	first := idx.lineAt(start)
	base := idx.starts[first]
	stop := len(src)
	if k := idx.lineAt(min(end+1, len(src))) + 2; k < len(idx.starts) {
		stop = idx.starts[k]
	}
	// A long line (minified JSON, a long template on one line) is cut
	// lineContext bytes before start and after end, and the cuts marked:
	// the writer shows whole lines, so a minified JSON config with many
	// mistakes printed the whole config once for each, scanning it each time.
	cutStart, cutEnd := false, false
	if lineStart := base; textEnd(src, idx.lineEnd(first, len(src)))-lineStart > longLine {
		if b := runeStart(src, start-lineContext); b > lineStart {
			base, cutStart = b, true
		}
	}
	last := idx.lineAt(end)
	if lastEnd := textEnd(src, idx.lineEnd(last, len(src))); lastEnd-idx.starts[last] > longLine {
		if s := runeStart(src, end+lineContext); s > end && s < lastEnd {
			stop, cutEnd = s, true
		}
	}
	if base == 0 && stop == len(src) {
		return false // the window would be the whole file
	}
	shift := func(r *hcl.Range) *hcl.Range {
		c := *r
		c.Start.Byte -= base
		c.End.Byte -= base
		return &c
	}
	moved := *d
	moved.Subject = shift(d.Subject)
	if d.Context != nil {
		moved.Context = shift(d.Context)
	}
	window := &hcl.File{Body: f.Body, Bytes: src[base:stop], Nav: offsetNav{f.Nav, base}}
	var out bytes.Buffer
	w := hcl.NewDiagnosticTextWriter(&out, map[string]*hcl.File{d.Subject.Filename: window}, wrap, true)
	if w.WriteDiagnostic(&moved) != nil {
		return false
	}
	// The writer starts with the severity and the summary, then a blank
	// line, then the header.
	header := 2 + strings.Count(d.Summary, "\n")
	fixed, ok := renumber(out.String(), header, fmt.Sprintf("  on %s line %d", d.Subject.Filename, d.Subject.Start.Line), idx.scanLine[first]-1, cutStart, cutEnd)
	if !ok {
		return false
	}
	buf.WriteString(fixed)
	return true
}

// renumber adds by to the line numbers HCL's writer put before the source
// lines of one diagnostic: the lines that follow line h (counted from 0),
// which starts with header, up to the first empty line. cutStart and cutEnd
// say the first and the last source line were cut, and get an ellipsis
// where. It reports false when the text does not have that shape.
func renumber(text string, h int, header string, by int, cutStart, cutEnd bool) (string, bool) {
	ls := strings.SplitAfter(text, "\n")
	if h >= len(ls) || !strings.HasPrefix(ls[h], header) {
		return "", false
	}
	lastSource := h
	for i := h + 1; i < len(ls) && ls[i] != "\n"; i++ {
		lastSource = i
	}
	if lastSource == h && (cutStart || cutEnd) {
		return "", false
	}
	if cutEnd {
		l := ls[lastSource]
		if strings.HasSuffix(l, "\n") {
			ls[lastSource] = l[:len(l)-1] + ellipsis + "\n"
		} else {
			ls[lastSource] = l + ellipsis
		}
	}
	if cutStart {
		l := ls[h+1]
		colon := strings.Index(l, ": ")
		if colon < 0 {
			return "", false
		}
		ls[h+1] = l[:colon+2] + ellipsis + l[colon+2:]
	}
	for i := h + 1; i < len(ls) && ls[i] != "\n"; i++ {
		// Each is fmt.Sprintf("%4d: %s\n", line, source).
		l := ls[i]
		colon := strings.Index(l, ": ")
		if colon < 0 {
			return "", false
		}
		n, err := strconv.Atoi(strings.TrimLeft(l[:colon], " "))
		if err != nil || n < 1 {
			return "", false
		}
		ls[i] = fmt.Sprintf("%4d", n+by) + l[colon:]
	}
	return strings.Join(ls, ""), true
}

// lineIndex is where the lines of a file start, as HCL's writer splits them
// (after each "\n"), and the line number HCL's range scanner gives each.
type lineIndex struct {
	starts []int
	// scanLine[k] is the line number of the line at starts[k]. The
	// scanner counts a line at each "\n", "\r\n" and lone "\r" (a grapheme
	// cluster that starts with either), though it splits lines at "\n"
	// only.
	scanLine []int
}

func newLineIndex(src []byte) *lineIndex {
	idx := &lineIndex{starts: []int{0}, scanLine: []int{1}}
	line := 1
	for i, c := range src {
		switch {
		case c == '\n':
			line++
			idx.starts = append(idx.starts, i+1)
			idx.scanLine = append(idx.scanLine, line)
		case c == '\r' && (i+1 == len(src) || src[i+1] != '\n'):
			line++
		}
	}
	return idx
}

// lineEnd returns the offset where line k ends, after its "\n"; size for
// the last line.
func (idx *lineIndex) lineEnd(k, size int) int {
	if k+1 < len(idx.starts) {
		return idx.starts[k+1]
	}
	return size
}

// textEnd returns where the text of a line that ends at end (after its
// line break, if it has one) ends: before its "\n" or "\r\n".
func textEnd(src []byte, end int) int {
	if end > 0 && src[end-1] == '\n' {
		end--
		if end > 0 && src[end-1] == '\r' {
			end--
		}
	}
	return end
}

// runeStart returns i, or the start of the UTF-8 character that holds it.
func runeStart(src []byte, i int) int {
	for i > 0 && i < len(src) && !utf8.RuneStart(src[i]) {
		i--
	}
	return i
}

// A source line whose text is longer than longLine bytes is shown from
// lineContext bytes before a diagnostic's range to lineContext bytes after
// it, with an ellipsis at each cut (where there is more text to cut).
const (
	longLine    = 240
	lineContext = 80
	ellipsis    = "…"
)

// lineAt returns the index in starts of the line that holds offset.
func (idx *lineIndex) lineAt(offset int) int {
	return sort.Search(len(idx.starts), func(i int) bool { return idx.starts[i] > offset }) - 1
}

// offsetNav is a file's navigation seen from a window that starts at
// offset base: HCL's writer asks it for the "in tool ..." context.
type offsetNav struct {
	nav  any
	base int
}

// ContextString implements the interface HCL's writer looks for.
func (n offsetNav) ContextString(offset int) string {
	if cs, ok := n.nav.(interface{ ContextString(int) string }); ok {
		return cs.ContextString(offset + n.base)
	}
	return ""
}
