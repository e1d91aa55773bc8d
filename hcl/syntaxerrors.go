package hcl

// Syntax errors as a person should read them: the parser's diagnostics of
// a file limited to its first few (LimitSyntaxErrors), and those whose
// cause HCL's parser does not name explained (ExplainSyntaxErrors).

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apparentlymart/go-textseg/v15/textseg"
	"github.com/go-resty/resty/v2/shellescape"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"golang.org/x/text/width"

	"github.com/toolhost/toolhost/internal/linebreak"
)

// MaxSyntaxErrors is how many of a file's syntax errors a load reports.
const MaxSyntaxErrors = 10

// NotShown is the Extra of the diagnostic LimitSyntaxErrors puts in place
// of the diagnostics it leaves out: how many errors and warnings those are,
// so that a count of a load's problems can include them.
type NotShown struct{ Errors, Warnings int }

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
		Extra:   NotShown{Errors: errs, Warnings: warns},
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
	return explainFullWidth(src, explainUnquoted(src, explainUnclosedString(src, explainLoneCR(name, src, diags))))
}

// explainUnclosedString explains a string left without its closing quote.
// HCL reports it twice at the end of its line, "Invalid multi-line string"
// (which advises \n or a heredoc, as for text meant to span lines) and
// "Unterminated template string", and neither says that a quote is
// missing, nor points at the string: the two become one error from the
// opening quote to the end of the line, which says both. The errors on
// the lines after it, which HCL reads as part of the string, are left to
// LimitSyntaxErrors.
func explainUnclosedString(src []byte, diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for i, u := range diags {
		if u.Summary != "Unterminated template string" || u.Subject == nil {
			continue
		}
		at := u.Subject.Start
		if at.Byte < 0 || at.Byte > len(src) {
			continue
		}
		if out == nil {
			out = slices.Clone(diags)
		}
		lineStart := bytes.LastIndexByte(src[:at.Byte], '\n') + 1
		subject := *u.Subject
		if open := unclosedQuote(src[lineStart:at.Byte]); open >= 0 {
			col := 1 + graphemes(src[lineStart:lineStart+open])
			end := bytes.TrimRight(src[lineStart:at.Byte], " \t\r")
			subject = hcl.Range{Filename: subject.Filename,
				Start: hcl.Pos{Line: at.Line, Column: col, Byte: lineStart + open},
				End:   hcl.Pos{Line: at.Line, Column: 1 + graphemes(end), Byte: lineStart + len(end)}}
		}
		explained := &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "String without closing quote",
			Detail:   fmt.Sprintf("This string has no closing quote (\") on line %d. A quoted string ends on the line it starts, so HCL reads on into the lines after it, and may report errors there too. Add the closing quote at the end of the string; for text of several lines, write \\n for each line break, or use a heredoc (<<-EOT, the lines, then EOT on a line of its own).", at.Line),
			Subject:  &subject,
		}
		out[i] = nil
		placed := false
		for j, m := range out {
			if m != nil && m.Summary == "Invalid multi-line string" && m.Subject != nil && m.Subject.Start.Byte == at.Byte && m.Subject.Filename == u.Subject.Filename {
				out[j], placed = explained, true
				break
			}
		}
		if !placed {
			out[i] = explained
		}
	}
	if out == nil {
		return diags
	}
	return slices.DeleteFunc(out, func(d *hcl.Diagnostic) bool { return d == nil })
}

// unclosedQuote returns the offset in line (the start of a line up to the
// end of an unterminated string) of the quote that opens the string left
// open, or -1.
func unclosedQuote(line []byte) int {
	tokens, _ := hclsyntax.LexConfig(line, "", hcl.InitialPos)
	var open []int // the opening quotes not closed yet
	for _, tok := range tokens {
		switch tok.Type {
		case hclsyntax.TokenOQuote:
			open = append(open, tok.Range.Start.Byte)
		case hclsyntax.TokenCQuote:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 {
		return -1
	}
	return open[0]
}

// unquotedErrors are the summaries of HCL's errors in a text value written
// without quotes, as in description = Greets someone by name: the parser
// reads the first word as a name, and stops at the next word or at the
// first punctuation that cannot follow a name.
var unquotedErrors = map[string]bool{
	"Missing newline after argument":  true,
	"Unexpected comma after argument": true,
	"Invalid character":               true,
}

// explainUnquoted explains the syntax errors in a line NAME = VALUE whose
// value starts with a word and has no double quote: text written without
// quotes, such as url = https://example.com or text = Hello world. HCL
// says only that "an argument definition must end with a newline", at the
// second word or at a ":" in the middle of the text. The first such error
// of the line becomes one that points at the whole value and shows it in
// quotes; the others of the line, which follow from it, are dropped.
func explainUnquoted(src []byte, diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	explained := map[string]bool{} // file:line
	for i, d := range diags {
		if d.Severity != hcl.DiagError || !unquotedErrors[d.Summary] || d.Subject == nil {
			continue
		}
		key := fmt.Sprintf("%s:%d", d.Subject.Filename, d.Subject.Start.Line)
		e, ok := unquotedValue(src, d)
		if !ok && !explained[key] {
			continue
		}
		if out == nil {
			out = slices.Clone(diags)
		}
		if explained[key] {
			out[i] = nil // follows from the one explained
			continue
		}
		explained[key] = true
		out[i] = e
	}
	if out == nil {
		return diags
	}
	return slices.DeleteFunc(out, func(d *hcl.Diagnostic) bool { return d == nil })
}

// unquotedValue returns the explanation of d when it lies in the value of
// a line NAME = VALUE whose value looks like text without quotes.
func unquotedValue(src []byte, d *hcl.Diagnostic) (*hcl.Diagnostic, bool) {
	at := d.Subject.Start.Byte
	if at < 0 || at >= len(src) {
		return nil, false
	}
	start := bytes.LastIndexByte(src[:at], '\n') + 1
	end := bytes.IndexByte(src[at:], '\n')
	if end < 0 {
		end = len(src) - at
	}
	line := src[start : at+end]
	eq := bytes.IndexByte(line, '=')
	if eq < 0 {
		return nil, false
	}
	name := bytes.TrimSpace(line[:eq])
	if !validIdentifier(string(name)) {
		return nil, false
	}
	lead := eq + 1
	for lead < len(line) && (line[lead] == ' ' || line[lead] == '\t') {
		lead++
	}
	value := bytes.TrimRight(line[lead:], " \t\r")
	if start+lead >= at || len(value) == 0 || bytes.ContainsRune(value, '"') {
		return nil, false
	}
	if r, _ := utf8.DecodeRune(value); !unicode.IsLetter(r) && r != '_' {
		return nil, false
	}
	if typedFullWidth(value) {
		// read_only_hint = true，: a full-width comma, not text.
		return nil, false
	}
	// The value in quotes, as HCL reads a string: a backslash escapes.
	quoted := `"` + strings.ReplaceAll(string(value), `\`, `\\`) + `"`
	col := 1 + graphemes(line[:lead])
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Text without quotes",
		Detail: fmt.Sprintf("The value of %s is not in quotes, so HCL reads it as an expression, and it is not one. If it is text, write it in double quotes: %s = %s.",
			name, name, shorten([]byte(quoted), 120)),
		Subject: &hcl.Range{Filename: d.Subject.Filename,
			Start: hcl.Pos{Line: d.Subject.Start.Line, Column: col, Byte: start + lead},
			End:   hcl.Pos{Line: d.Subject.Start.Line, Column: col + graphemes(value), Byte: start + lead + len(value)}},
	}, true
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
		ascii, ok := fullWidthASCII(r)
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
	return dropFullWidthEchoes(out, diags)
}

// dropFullWidthEchoes drops, from explained (diags with their full-width
// errors explained), HCL's other errors on a line with a full-width
// character: they are what the parser made of the line without the
// character it did not read ("Argument or block definition required"
// before a full-width ＝), said first and pointing elsewhere, and go away
// with it.
func dropFullWidthEchoes(explained, diags hcl.Diagnostics) hcl.Diagnostics {
	lines := map[string]bool{}
	key := func(r *hcl.Range) string { return fmt.Sprintf("%s:%d", r.Filename, r.Start.Line) }
	for i, d := range explained {
		if d != diags[i] {
			lines[key(d.Subject)] = true
		}
	}
	out := explained[:0:0]
	for i, d := range explained {
		if d == diags[i] && d.Severity == hcl.DiagError && d.Subject != nil && lines[key(d.Subject)] {
			continue
		}
		out = append(out, d)
	}
	return out
}

// fullWidthASCII returns the ASCII character that the full-width
// character r (as an input method for Chinese, Japanese or Korean types
// it) stands for, and whether r is one.
func fullWidthASCII(r rune) (string, bool) {
	if ascii, ok := cjkPunctuation[r]; ok {
		return ascii, true
	}
	if r >= 0xFF01 && r <= 0xFF5E {
		return width.Narrow.String(string(r)), true
	}
	return "", false
}

// typedFullWidth reports whether s is ASCII but for full-width
// characters, one at least: ASCII typed with an input method left in
// full-width mode (true，), which explainFullWidth explains, rather than
// text.
func typedFullWidth(s []byte) bool {
	full := false
	for _, r := range string(s) {
		if r < utf8.RuneSelf {
			continue
		}
		if _, ok := fullWidthASCII(r); !ok {
			return false
		}
		full = true
	}
	return full
}

// explainUTF16 returns the one error for file name when its text src is
// UTF-16, nil otherwise. Windows PowerShell 5 writes UTF-16 with > and
// Out-File, and HCL reads it as a stream of invalid characters, one every
// other byte, with the NUL bytes between them printed in the source lines.
func explainUTF16(name string, src []byte) hcl.Diagnostics {
	if rest, ok := bytes.CutPrefix(src, utf8BOM); ok {
		if order := utf16Order(rest); order != "" {
			return explainUTF16AfterBOM(name, order)
		}
	}
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

// utf8BOM is the UTF-8 byte order mark.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// explainUTF16AfterBOM explains a file whose UTF-8 byte order mark is
// followed by UTF-16 text (in the given byte order), as when UTF-16 text is
// appended to an empty file saved as UTF-8 with a BOM. The commands that
// convert a UTF-16 file would read the mark's three bytes as UTF-16 and
// shift every character after it: these drop the mark first.
func explainUTF16AfterBOM(name, order string) hcl.Diagnostics {
	from, dotnet := "UTF-16LE", "Unicode"
	if order == utf16BE {
		from, dotnet = "UTF-16BE", "BigEndianUnicode"
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Config file is UTF-16 after a UTF-8 mark",
		Detail: fmt.Sprintf("%s starts with a UTF-8 byte order mark, but the text after it is encoded in UTF-16 (%s): two encodings were written into one file. HCL files are UTF-8. Drop the mark and convert the rest to UTF-8: with iconv, %s; or in PowerShell, $p = (Resolve-Path -LiteralPath %s).Path; $b = [IO.File]::ReadAllBytes($p); [IO.File]::WriteAllText($p, [Text.Encoding]::%s.GetString($b, 3, $b.Length - 3))",
			name, order, rewriteCommand("{ tail -c +4 | iconv -f "+from+" -t UTF-8; }", name), psQuote(name), dotnet),
		// The byte order mark.
		Subject: &hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: 2, Byte: len(utf8BOM)}},
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
