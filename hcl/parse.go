package hcl

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apparentlymart/go-textseg/v15/textseg"
	"github.com/go-resty/resty/v2/shellescape"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/json"
	"golang.org/x/text/width"

	"github.com/toolhost/toolhost/internal/linebreak"
	"github.com/toolhost/toolhost/internal/parallel"
)

// A native-syntax file of splitMin bytes or more is parsed in pieces of
// pieceMin bytes at least (but the last, see pieceBounds): two for each
// processor, or more when that would make pieces over pieceMax. HCL's lexer
// runs at a few MB/s (it measures columns in grapheme clusters): in a new
// process the 9 KB of examples/tools.hcl take 2 ms to parse, and a start of
// it took 0.2–0.5 ms less parsed in four pieces on two cores (BENCHMARKS.md,
// "Cold start on both cores"). Below that size the goroutines, and the
// thread the first of them needs early in a process, would cost about what
// they save.
//
// The lexer appends every token of what it is given to one slice (96 bytes
// a token, a token for every 4–5 bytes of a config), which Go grows by
// about a quarter at a time once it is large: the 20,000 tokens of an 80 KB
// piece (1.9 MB) took about five times that in allocations, and four in
// copies. Pieces of about pieceMax keep the slice small: the parse of
// 1,000 tools (320 KB) allocates 35 MB instead of 55 MB, and takes a fifth
// less CPU (BENCHMARKS.md, "Large configs").
const (
	splitMin = 4 << 10
	pieceMin = 2 << 10
	pieceMax = 4 << 10
)

// parseFiles parses config files with no cache, so that every load sees
// them as they are now. A native-syntax file of splitMin bytes or more is
// cut at top-level block boundaries, and the pieces of all the files are
// parsed side by side, in one parallel.For: a directory of small files and
// one large file both use every processor, with no more goroutines than
// processors. Each piece is parsed at its true start position, so ranges
// and diagnostics are the same as for a whole-file parse; any doubt falls
// back to parsing the whole file. The results are in the order of names.
func parseFiles(names []string, srcs [][]byte) ([]*hcl.File, []hcl.Diagnostics) {
	files := make([]*hcl.File, len(names))
	diags := make([]hcl.Diagnostics, len(names))
	// bounds[i] are the offsets file i is cut at, its start and end
	// included; nil for a file parsed whole.
	bounds := make([][]int, len(names))
	type job struct{ file, piece int }
	var jobs []job
	for i := range names {
		bounds[i] = pieceBounds(names[i], srcs[i])
		if bounds[i] == nil {
			jobs = append(jobs, job{i, -1})
			continue
		}
		for k := range len(bounds[i]) - 1 {
			jobs = append(jobs, job{i, k})
		}
	}
	pieces := make([][]*hcl.File, len(names))
	failed := make([][]bool, len(names))
	// lines[i][k] is the line piece k of file i starts on.
	lines := make([][]int, len(names))
	for i, b := range bounds {
		if b != nil {
			pieces[i] = make([]*hcl.File, len(b)-1)
			failed[i] = make([]bool, len(b)-1)
			lines[i] = pieceLines(srcs[i], b)
		}
	}
	parallel.For(len(jobs), 1, func(j int) {
		i, k := jobs[j].file, jobs[j].piece
		if k < 0 {
			files[i], diags[i] = parseWhole(names[i], srcs[i])
			return
		}
		pieces[i][k], failed[i][k] = parsePiece(names[i], srcs[i], bounds[i][k], bounds[i][k+1], lines[i][k])
	})
	for i := range names {
		if bounds[i] == nil {
			continue
		}
		if f, ok := joinPieces(srcs[i], pieces[i], failed[i]); ok {
			files[i] = f
		} else {
			files[i], diags[i] = parseWhole(names[i], srcs[i])
		}
	}
	return files, diags
}

// parseFile parses one config file as parseFiles does.
func parseFile(name string, src []byte) (*hcl.File, hcl.Diagnostics) {
	files, diags := parseFiles([]string{name}, [][]byte{src})
	return files[0], diags[0]
}

// pieceBounds returns the offsets a file is parsed in pieces at, its start
// and its end included, or nil when it is parsed whole: a JSON file, a
// file under splitMin, one processor, or no clean cut (see splitTopLevel).
func pieceBounds(name string, src []byte) []int {
	if isJSON(name) || len(src) < splitMin {
		return nil
	}
	procs := runtime.GOMAXPROCS(0)
	pieces := max(min(2*procs, len(src)/pieceMin), len(src)/pieceMax)
	if procs < 2 || pieces < 2 {
		return nil
	}
	cuts := splitTopLevel(src, pieces)
	// The pieces before the last are pieceMin bytes at least; the last is
	// whatever follows the last cut. A short last piece helps share the
	// work out when there are others, but a file of one large piece and
	// one short one is not worth a goroutine (or a thread) more.
	if len(cuts) == 1 && len(src)-cuts[0] < pieceMin {
		return nil
	}
	if len(cuts) == 0 {
		return nil
	}
	return append(append([]int{0}, cuts...), len(src))
}

func isJSON(name string) bool { return strings.HasSuffix(name, ".json") }

// parseWhole parses a whole file, in JSON or native syntax by its name.
func parseWhole(name string, src []byte) (*hcl.File, hcl.Diagnostics) {
	if isJSON(name) {
		// HCL's native parser skips a UTF-8 byte order mark, its JSON
		// parser does not ("Invalid start of value" at a character no
		// editor shows); Windows PowerShell 5 writes one with -Encoding
		// utf8. The text after it is parsed from byte 3 and column 1, as
		// the native parser counts, and the file keeps its own bytes.
		if bom := []byte("\xEF\xBB\xBF"); bytes.HasPrefix(src, bom) {
			f, diags := json.ParseWithStartPos(src[len(bom):], name, hcl.Pos{Line: 1, Column: 1, Byte: len(bom)})
			if f != nil {
				f.Bytes = src
			}
			return f, diags
		}
		return json.Parse(src, name)
	}
	return hclsyntax.ParseConfig(src, name, hcl.InitialPos)
}

// pieceLines returns the line each piece of src starts on, for the offsets
// pieceBounds returned: one count of the file's newlines in all.
func pieceLines(src []byte, bounds []int) []int {
	lines := make([]int, len(bounds)-1)
	line := 1
	for k := range lines {
		if k > 0 {
			line += bytes.Count(src[bounds[k-1]:bounds[k]], []byte("\n"))
		}
		lines[k] = line
	}
	return lines
}

// parsePiece parses src[start:end], a piece that starts line line, at its
// position in src. failed is whether it has any diagnostic.
func parsePiece(name string, src []byte, start, end, line int) (f *hcl.File, failed bool) {
	pos := hcl.Pos{Line: line, Column: 1, Byte: start}
	f, diags := hclsyntax.ParseConfig(src[start:end], name, pos)
	return f, len(diags) > 0
}

// joinPieces joins the parsed pieces of src into one body. It reports false
// when a piece has any diagnostic, or when two pieces set the same
// top-level attribute: the caller then parses the whole file, so that
// diagnostics are exactly HCL's.
func joinPieces(src []byte, files []*hcl.File, failed []bool) (*hcl.File, bool) {
	// Empty, not nil, as hclsyntax leaves a body without blocks.
	body := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}, Blocks: hclsyntax.Blocks{}}
	for i, f := range files {
		if failed[i] {
			return nil, false
		}
		b := f.Body.(*hclsyntax.Body)
		for k, a := range b.Attributes {
			if _, dup := body.Attributes[k]; dup {
				return nil, false // let the whole parse report it
			}
			body.Attributes[k] = a
		}
		body.Blocks = append(body.Blocks, b.Blocks...)
	}
	first := files[0].Body.(*hclsyntax.Body)
	last := files[len(files)-1].Body.(*hclsyntax.Body)
	body.SrcRange = hcl.RangeBetween(first.SrcRange, last.SrcRange)
	body.EndRange = last.EndRange
	return &hcl.File{Body: body, Bytes: src, Nav: pieceNav(files)}, true
}

// pieceNav gives the diagnostic writer the "in tool ..." context of a file
// parsed in pieces, by asking the piece that holds the offset.
type pieceNav []*hcl.File

// ContextString implements the interface hcl's diagnostic writer looks for.
func (n pieceNav) ContextString(offset int) string {
	for _, f := range n {
		// A piece's range ends where the next one starts: an offset at a
		// cut is the next piece's.
		if f.Body.(*hclsyntax.Body).SrcRange.ContainsOffset(offset) {
			if cs, ok := f.Nav.(interface{ ContextString(int) string }); ok {
				return cs.ContextString(offset)
			}
		}
	}
	return ""
}

// splitTopLevel finds up to pieces-1 offsets at which src can be cut into
// pieces of similar size, each at the start of a line that follows a
// top-level block's closing brace. It understands strings, template
// interpolations, heredocs and comments; when the scan does not end
// balanced it returns nil.
func splitTopLevel(src []byte, pieces int) []int {
	target := len(src) / pieces
	var cuts []int
	last := 0
	depth := 0
	// stack holds the contexts entered: 's' a quoted string, or the brace
	// depth at which an interpolation began (as depth+1, to tell it from 's').
	var stack []int
	const inString = -1
	i := 0
	n := len(src)
	for i < n {
		c := src[i]
		if len(stack) > 0 && stack[len(stack)-1] == inString {
			switch {
			case c == '\\':
				i += 2
				continue
			case c == '"':
				stack = stack[:len(stack)-1]
			case (c == '$' || c == '%') && i+2 < n && src[i+1] == c && src[i+2] == '{':
				i += 3 // "$${" and "%%{" are literal text
				continue
			case (c == '$' || c == '%') && i+1 < n && src[i+1] == '{':
				stack = append(stack, depth)
				depth++
				i += 2
				continue
			case c == '\n':
				return nil // quoted strings do not span lines
			}
			i++
			continue
		}
		switch c {
		case '"':
			stack = append(stack, inString)
		case '#':
			i = skipLine(src, i)
			continue
		case '/':
			if i+1 < n && src[i+1] == '/' {
				i = skipLine(src, i)
				continue
			}
			if i+1 < n && src[i+1] == '*' {
				end := bytes.Index(src[i+2:], []byte("*/"))
				if end < 0 {
					return nil
				}
				i += end + 4
				continue
			}
		case '<':
			if i+1 < n && src[i+1] == '<' {
				next, ok := skipHeredoc(src, i)
				if !ok {
					return nil
				}
				if next > i {
					i = next
					continue
				}
			}
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
			if depth < 0 {
				return nil
			}
			if c == '}' && len(stack) > 0 && stack[len(stack)-1] == depth {
				stack = stack[:len(stack)-1] // back in the string
				i++
				continue
			}
			if depth == 0 && len(stack) == 0 && i-last >= target && len(cuts) < pieces-1 {
				eol := bytes.IndexByte(src[i:], '\n')
				if eol >= 0 && eol+i+1 < n {
					cut := i + eol + 1
					cuts = append(cuts, cut)
					last = cut
				}
			}
		}
		i++
	}
	if depth != 0 || len(stack) != 0 {
		return nil
	}
	return cuts
}

func skipLine(src []byte, i int) int {
	eol := bytes.IndexByte(src[i:], '\n')
	if eol < 0 {
		return len(src)
	}
	return i + eol
}

// skipHeredoc skips a heredoc starting at src[i] ("<<EOT" or "<<-EOT"). It
// returns i itself when "<<" does not start a heredoc, and false when the
// heredoc never ends.
func skipHeredoc(src []byte, i int) (int, bool) {
	j := i + 2
	if j < len(src) && src[j] == '-' {
		j++
	}
	k := j
	for k < len(src) && (src[k] == '_' || src[k] >= 'A' && src[k] <= 'Z' || src[k] >= 'a' && src[k] <= 'z' || src[k] >= '0' && src[k] <= '9') {
		k++
	}
	if k == j || k >= len(src) || (src[k] != '\n' && src[k] != '\r') {
		return i, true
	}
	marker := src[j:k]
	pos := k
	for {
		eol := bytes.IndexByte(src[pos:], '\n')
		if eol < 0 {
			return 0, false
		}
		lineStart := pos + eol + 1
		lineEnd := bytes.IndexByte(src[lineStart:], '\n')
		var line []byte
		if lineEnd < 0 {
			line = src[lineStart:]
		} else {
			line = src[lineStart : lineStart+lineEnd]
		}
		if bytes.Equal(bytes.TrimSpace(line), marker) {
			return lineStart + len(line), true
		}
		if lineEnd < 0 {
			return 0, false
		}
		pos = lineStart
	}
}

// MaxSyntaxErrors is how many of a file's syntax errors a load reports.
const MaxSyntaxErrors = 10

// LimitSyntaxErrors keeps the first MaxSyntaxErrors of the diagnostics of
// parsing file name, and puts one that counts the rest in their place. A
// single mistake, such as a string or a block left open, makes HCL's parser
// report nearly every line after it: a config of 1,000 tools with one
// missing quote gave 17,000 errors, and printing them with their source
// lines took minutes. The first errors are the ones to fix.
func LimitSyntaxErrors(name string, diags hcl.Diagnostics) hcl.Diagnostics {
	if len(diags) <= MaxSyntaxErrors+1 {
		return diags
	}
	rest := diags[MaxSyntaxErrors:]
	errs := 0
	for _, d := range rest {
		if d.Severity == hcl.DiagError {
			errs++
		}
	}
	plural := func(n int, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", n, what)
	}
	warns := len(rest) - errs
	var what string
	switch {
	case warns == 0:
		what = plural(errs, "more syntax error")
	case errs == 0:
		what = plural(warns, "more syntax warning")
	default:
		what = plural(errs, "more syntax error") + " and " + plural(warns, "warning")
	}
	more := &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Too many syntax errors",
		Detail: fmt.Sprintf("%s has %s, from here on, that are not shown. Most of them are likely to follow from the errors above (a string, a block or a heredoc left open makes the rest of the file unreadable): fix those first, then check the file again.",
			name, what),
		Subject: rest[0].Subject,
	}
	if errs == 0 {
		more.Severity = hcl.DiagWarning
		more.Summary = "Too many syntax warnings"
	}
	return append(diags[:MaxSyntaxErrors:MaxSyntaxErrors], more)
}

// ExplainSyntaxErrors explains what HCL's parser reports without naming
// its cause, given a file's name, its text and the parser's diagnostics: a
// file in UTF-16 (explainUTF16) and carriage returns without line feeds
// (explainLoneCR), each as one error in place of many, and full-width
// punctuation (explainFullWidth). A file of HCL's JSON syntax is explained
// only as UTF-16: JSON reads a lone CR as a space, and its errors are its
// own.
func ExplainSyntaxErrors(name string, src []byte, diags hcl.Diagnostics) hcl.Diagnostics {
	if diags.HasErrors() {
		if d := explainUTF16(name, src); d != nil {
			return d
		}
	}
	if isJSON(name) {
		return diags
	}
	// A file with lone CRs and no LF may parse without errors, as one
	// comment: explainLoneCR looks at it whatever the diagnostics.
	return explainFullWidth(src, explainLoneCR(name, src, diags))
}

// cjkPunctuation maps the punctuation an input method for Chinese types
// where HCL has an ASCII character, beyond the full-width forms (U+FF01 to
// U+FF5E), which width.Narrow maps.
var cjkPunctuation = map[rune]string{
	'\u3000': " ", // ideographic space
	'、':      ",",
	'。':      ".",
	'【':      "[",
	'】':      "]",
	'「':      "\"",
	'」':      "\"",
	'＇':      "\"", // HCL has no single quotes
}

// hclPunctuation is the ASCII punctuation HCL's syntax uses outside
// strings, and the space.
const hclPunctuation = "=,:;(){}[]<>+-*/%!&|?.\"#$ "

// isASCIIAlnum reports whether c is one ASCII letter or digit.
func isASCIIAlnum(c string) bool {
	return len(c) == 1 && (c[0] >= '0' && c[0] <= '9' || c[0] >= 'a' && c[0] <= 'z' || c[0] >= 'A' && c[0] <= 'Z')
}

// asciiName names an ASCII character for a message: "=" in quotes, but a
// double quote and a space by name.
func asciiName(c string) string {
	switch c {
	case "\"":
		return "double quote (\")"
	case " ":
		return "space"
	}
	return `"` + c + `"`
}

// explainFullWidth gives HCL's "Invalid character" errors at full-width
// punctuation (＝, ，, ：, （, ｛, the ideographic space...), which an
// input method for Chinese, Japanese or Korean types unless switched to
// half-width, a detail that names the character and the ASCII one HCL
// expects. HCL's own says only that the character is not used in the
// language.
func explainFullWidth(src []byte, diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for i, d := range diags {
		if d.Summary != "Invalid character" || d.Subject == nil || d.Subject.Start.Byte < 0 || d.Subject.Start.Byte >= len(src) {
			continue
		}
		r, _ := utf8.DecodeRune(src[d.Subject.Start.Byte:])
		// Curly quotes (“ ” ‘ ’) have HCL's own explanation.
		ascii, ok := cjkPunctuation[r]
		if !ok && r >= 0xFF01 && r <= 0xFF5E {
			ascii, ok = width.Narrow.String(string(r)), true
		}
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(diags)
		}
		explained := *d
		what := "the full-width " + string(r)
		if r == '\u3000' {
			what = "an ideographic space"
		}
		reads := "HCL reads only ASCII punctuation"
		if strings.Contains(hclPunctuation, ascii) || isASCIIAlnum(ascii) {
			reads = "HCL reads the ASCII " + asciiName(ascii) + " here"
		}
		explained.Detail = fmt.Sprintf("This is %s (U+%04X), as an input method for Chinese, Japanese or Korean types it; %s. Switch the input method to half-width (English) punctuation and type it again.", what, r, reads)
		out[i] = &explained
	}
	if out == nil {
		return diags
	}
	return out
}

// explainUTF16 returns the one error for file name when its text src is
// UTF-16, nil otherwise. Windows PowerShell 5 writes UTF-16 with > and
// Out-File, and HCL reads it as a stream of invalid characters, one every
// other byte, with the NUL bytes between them printed in the source lines.
func explainUTF16(name string, src []byte) hcl.Diagnostics {
	order := utf16Order(src)
	if order == "" {
		return nil
	}
	from, psEncoding, source := "UTF-16LE", "Unicode", ", as Windows PowerShell 5 writes files with > and Out-File"
	if order == utf16BE {
		from, psEncoding, source = "UTF-16BE", "BigEndianUnicode", ""
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Config file is UTF-16",
		Detail: fmt.Sprintf("%s is encoded in UTF-16 (%s)%s; HCL files are UTF-8. Save it as UTF-8: in PowerShell, (Get-Content -Encoding %s -LiteralPath %s) | Set-Content -Encoding utf8 -LiteralPath %s; or with iconv, %s",
			name, order, source, psEncoding, psQuote(name), psQuote(name), rewriteCommand("iconv -f "+from+" -t UTF-8", name)),
		// The byte order mark, or the first character.
		Subject: &hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: 2, Byte: min(2, len(src))}},
	}}
}

// psQuote quotes s for PowerShell when it has more than letters, digits
// and path punctuation.
func psQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(`_-./\:`, r)) {
			return "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
	}
	return s
}

// The byte orders utf16Order names.
const (
	utf16LE = "little-endian"
	utf16BE = "big-endian"
)

// utf16Order returns utf16LE or utf16BE when src is UTF-16 text, by its
// byte order mark or, without one, by the NUL bytes of ASCII text in
// UTF-16, every other byte; "" otherwise.
func utf16Order(src []byte) string {
	switch {
	case bytes.HasPrefix(src, []byte{0xFF, 0xFE}) && !bytes.HasPrefix(src, []byte{0xFF, 0xFE, 0, 0}): // not UTF-32
		return utf16LE
	case bytes.HasPrefix(src, []byte{0xFE, 0xFF}):
		return utf16BE
	}
	head := src[:min(len(src), 512)&^1]
	if len(head) < 8 {
		return ""
	}
	var zeros [2]int
	for i, c := range head {
		if c == 0 {
			zeros[i%2]++
		}
	}
	half := len(head) / 2
	switch {
	case zeros[1] >= half*9/10 && zeros[0] < half/10:
		return utf16LE
	case zeros[0] >= half*9/10 && zeros[1] < half/10:
		return utf16BE
	}
	return ""
}

// explainLoneCR explains carriage returns that no line feed follows. HCL
// ends lines with LF or CR LF only; its parser reads a lone CR as an
// invalid character, on the line it ends (HCL's diagnostic writer, though,
// counts it as a line break).
//
//   - A file with lone CRs and no LF, saved with the line ends of classic
//     Mac OS, is one line to the parser: an "Invalid character" at every
//     line end, or, when it starts with a # comment, one comment, which is
//     a valid config that declares nothing. Whatever the parser said, its
//     diagnostics are replaced by one error that says how to convert the
//     file.
//   - In other files, the errors HCL reports at lone CRs ("Invalid
//     character", and "Missing newline after argument" at the same place)
//     become one error at the first of them, which counts them all. A lone
//     CR in a comment or a string is left alone, as HCL leaves it.
func explainLoneCR(name string, src []byte, diags hcl.Diagnostics) hcl.Diagnostics {
	if bytes.IndexByte(src, '\n') < 0 {
		first := bytes.IndexByte(src, '\r')
		if first < 0 {
			return diags
		}
		// The first line, as the file's author sees it.
		end := hcl.Pos{Line: 1, Column: 1 + graphemes(src[:first]), Byte: first}
		if first == 0 {
			end = hcl.Pos{Line: 1, Column: 2, Byte: 1}
		}
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Carriage return without line feed",
			Detail: fmt.Sprintf("%s ends its lines with a carriage return (CR) alone, as files saved for classic Mac OS do; HCL ends lines with a line feed (LF) or with CR LF. Save the file with LF line ends, for example with: %s",
				name, rewriteCommand(`tr '\r' '\n'`, name)),
			Subject: &hcl.Range{Filename: name, Start: hcl.InitialPos, End: end},
		}}
	}
	if !linebreak.HasLoneCR(src) {
		return diags
	}
	diags = append(diags, hiddenInComments(name, src)...)
	var first *hcl.Diagnostic
	kept := make(hcl.Diagnostics, 0, len(diags))
	for _, d := range diags {
		if d.Severity != hcl.DiagError || d.Subject == nil || !linebreak.LoneCRAt(src, d.Subject.Start.Byte) {
			kept = append(kept, d)
			continue
		}
		if first == nil {
			first = d
			kept = append(kept, nil) // its place; filled in below
		}
	}
	if first == nil {
		return diags
	}
	count := 0
	for i := range src {
		if linebreak.LoneCRAt(src, i) {
			count++
		}
	}
	more := ""
	if count > 1 {
		more = fmt.Sprintf(" The file has %d carriage returns without a line feed.", count)
	}
	// The subject is the CR, at the parser's position (it counts no line
	// at a lone CR, so the line numbers are those of the diagnostics
	// around it).
	at := first.Subject.Start
	explained := &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Carriage return without line feed",
		Detail: fmt.Sprintf("Line %d of %s has a carriage return (CR) that no line feed (LF) follows, where the caret points; HCL allows a CR only at the end of a line, just before its LF. Remove it, or save the file with LF line ends.%s",
			at.Line, first.Subject.Filename, more),
		Subject: &hcl.Range{Filename: first.Subject.Filename, Start: at, End: hcl.Pos{Line: at.Line, Column: at.Column + 1, Byte: at.Byte + 1}},
	}
	for i, d := range kept {
		if d == nil {
			kept[i] = explained
		}
	}
	return kept
}

// hiddenInComments returns an error for each line comment (# or //) of a
// native-syntax file that holds a lone CR with text after it: an editor
// shows that text on a line of its own, but HCL reads it, up to the next
// LF, as part of the comment, and a block or an argument there is ignored
// without a word.
func hiddenInComments(name string, src []byte) hcl.Diagnostics {
	if !crAfterCommentMark(src) {
		return nil // no need to lex the file again
	}
	tokens, _ := hclsyntax.LexConfig(src, name, hcl.InitialPos)
	var diags hcl.Diagnostics
	for _, tok := range tokens {
		if tok.Type != hclsyntax.TokenComment || !(bytes.HasPrefix(tok.Bytes, []byte("#")) || bytes.HasPrefix(tok.Bytes, []byte("//"))) {
			continue
		}
		base := tok.Range.Start.Byte
		for i, c := range tok.Bytes {
			if c != '\r' || !linebreak.LoneCRAt(src, base+i) {
				continue
			}
			// The first line of text after the CR, as an editor shows it.
			rest := tok.Bytes[i+1:]
			end := bytes.IndexAny(rest, "\r\n")
			if end < 0 {
				end = len(rest)
			}
			lead := len(rest[:end]) - len(bytes.TrimLeft(rest[:end], " \t"))
			text := bytes.TrimSpace(rest[:end])
			if len(text) == 0 || text[0] == '#' || bytes.HasPrefix(text, []byte("//")) || bytes.HasPrefix(text, []byte("/*")) {
				continue // nothing, or another comment, is hidden
			}
			at := base + i + 1 + lead
			// Columns count grapheme clusters, as HCL's do.
			col := tok.Range.Start.Column + graphemes(tok.Bytes[:i+1+lead])
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Text hidden in a comment",
				Detail: fmt.Sprintf("The comment on line %d of %s holds a carriage return (CR) that no line feed (LF) follows. An editor shows what follows the CR on a line of its own, but HCL reads it, up to the next LF, as part of the comment: `%s` and what follows it are ignored. Remove the CR, or save the file with LF line ends.",
					tok.Range.Start.Line, name, shorten(text, 60)),
				Subject: &hcl.Range{Filename: name,
					Start: hcl.Pos{Line: tok.Range.Start.Line, Column: col, Byte: at},
					End:   hcl.Pos{Line: tok.Range.Start.Line, Column: col + graphemes(text), Byte: at + len(text)}},
			})
			break // one for each comment
		}
	}
	return diags
}

// crAfterCommentMark reports whether a lone CR in src has "#" or "//"
// before it on its line (as LFs end lines): only then can it be in a line
// comment.
func crAfterCommentMark(src []byte) bool {
	for i := range src {
		if !linebreak.LoneCRAt(src, i) {
			continue
		}
		line := src[bytes.LastIndexByte(src[:i], '\n')+1 : i]
		if bytes.IndexByte(line, '#') >= 0 || bytes.Contains(line, []byte("//")) {
			return true
		}
	}
	return false
}

// graphemes counts the grapheme clusters of b, as HCL counts columns.
func graphemes(b []byte) int {
	n, err := textseg.TokenCount(b, textseg.ScanGraphemeClusters)
	if err != nil {
		return utf8.RuneCount(b)
	}
	return n
}

// shorten returns text for a message, cut to n characters with an
// ellipsis when it is longer, and control characters (ESC, BEL, C1 ...),
// which a terminal would act on, shown as "?".
func shorten(text []byte, n int) string {
	r := []rune(string(text))
	cut := len(r) > n
	if cut {
		r = r[:n]
	}
	for i, c := range r {
		if unicode.IsControl(c) {
			r[i] = '?'
		}
	}
	if cut {
		return string(r) + "…"
	}
	return string(r)
}

// rewriteCommand is the shell command that rewrites file name through
// filter (which reads stdin and writes stdout) by way of name.new: the
// names shell-quoted, with "./" before one that starts with "-", so that
// it is not read as an option.
func rewriteCommand(filter, name string) string {
	if strings.HasPrefix(name, "-") {
		name = "./" + name
	}
	q, tmp := shellescape.Quote(name), shellescape.Quote(name+".new")
	return fmt.Sprintf("%s < %s > %s && mv %s %s", filter, q, tmp, tmp, q)
}
