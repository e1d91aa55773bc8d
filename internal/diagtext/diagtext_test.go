package diagtext

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestRenderCarets renders a diagnostic without colour: HCL's layout,
// no escape sequences, and carets under exactly the subject, also after
// tabs and wide characters.
func TestRenderCarets(t *testing.T) {
	tests := []struct {
		name, src, subject, want string
	}{
		{"ascii", "a = \"hello ${param.nme}\"\n", "param.nme", "   1: a = \"hello ${param.nme}\"\n                   ^^^^^^^^^\n"},
		{"wide", "t = \"北京 ${x}\"\n", "x", "   1: t = \"北京 ${x}\"\n                  ^\n"},
		{"tab", "\tb = nope\n", "nope", "   1: \tb = nope\n      \t    ^^^^\n"},
		// A byte order mark and a combining accent take no column; a
		// soft hyphen takes one, as terminals show it.
		{"byte order mark", "\ufeffa = nope\n", "nope", "   1: \ufeffa = nope\n          ^^^^\n"},
		{"soft hyphen", "a = \"co\u00adop\" + nope\n", "nope", "   1: a = \"co\u00adop\" + nope\n                    ^^^^\n"},
		{"combining mark", "a = \"e\u0301\" + nope\n", "nope", "   1: a = \"e\u0301\" + nope\n                ^^^^\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(tt.src), "t.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			start := strings.Index(tt.src, tt.subject)
			rng := hcl.Range{
				Filename: "t.hcl",
				Start:    hcl.Pos{Line: 1, Column: 1 + len([]rune(tt.src[:start])), Byte: start},
				End:      hcl.Pos{Line: 1, Column: 1 + len([]rune(tt.src[:start+len(tt.subject)])), Byte: start + len(tt.subject)},
			}
			var buf bytes.Buffer
			Render(&buf, map[string]*hcl.File{"t.hcl": f}, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Oops", Detail: "Fix it.", Subject: &rng}}, false, 0)
			out := buf.String()
			if strings.Contains(out, "\x1b") {
				t.Errorf("escape sequences without colour:\n%q", out)
			}
			if !strings.HasPrefix(out, "Error: Oops\n\n  on t.hcl line 1:\n") || !strings.Contains(out, tt.want) || !strings.HasSuffix(out, "Fix it.\n\n") {
				t.Errorf("got:\n%s\nwant it to contain:\n%s", out, tt.want)
			}
		})
	}
}

// TestWindowedMatchesHCL checks that a diagnostic rendered through a window
// of its file (writeWindowed) is byte for byte what HCL's writer renders
// from the whole file: for diagnostics at many places in .hcl files of the
// repository and in files with CRLF and lone CR line ends, a byte order
// mark, tabs, wide characters and no final newline; with and without a
// context range, empty, one-line and multi-line ranges, wrapped and not.
func TestWindowedMatchesHCL(t *testing.T) {
	srcs := map[string][]byte{
		"crlf.hcl":    []byte("tool \"a\" {\r\n  description = \"x\"\r\n\r\n  template { text = \"hi\" }\r\n}\r\n"),
		"lonecr.hcl":  []byte("a = 1\rb = 2\nc = \"3\"\r\n\rd = 4\n\n\ne = 5"),
		"bom.hcl":     []byte("\ufeffa = 1\nb = \"北京 ${x}\"\n\tc = 3\n"),
		"nonl.hcl":    []byte("a = 1\nb = 2"),
		"blank.hcl":   []byte("\n\n\n\na = 1\n\n\n"),
		"onechar.hcl": []byte("a"),
	}
	var repo []string
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && d.Name() != "..") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".hcl") {
			repo = append(repo, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(repo) < 20 {
		t.Fatalf("found %d .hcl files in the repository; the walk is broken", len(repo))
	}
	// Every third file, so that the reference renderings (HCL's writer
	// scanning whole files) stay quick.
	for i := 0; i < len(repo); i += 3 {
		src, err := os.ReadFile(repo[i])
		if err != nil {
			t.Fatal(err)
		}
		srcs[repo[i]] = src
	}
	windowed, checked := 0, 0
	for name, src := range srcs {
		if slices.ContainsFunc(bytes.Split(src, []byte("\n")), func(l []byte) bool { return len(l) > longLine }) {
			// Long lines are cut, and the cuts marked, unlike HCL's
			// writer does (TestRenderLongLine): nothing to compare.
			continue
		}
		f, _ := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		if f == nil {
			f = &hcl.File{Bytes: src}
		}
		files := map[string]*hcl.File{name: f}
		idx := newLineIndex(src)
		pos := scannerPositions(name, src)
		at := func(start, end int) *hcl.Range {
			return &hcl.Range{Filename: name, Start: pos(start), End: pos(end)}
		}
		step := max(1, len(src)/25)
		for off := 0; off <= len(src); off += step {
			n := len(src)
			for k, tc := range [][4]int{
				{off, off, -1, -1},
				{off, min(n, off+3), -1, -1},
				{off, min(n, off+200), -1, -1},
				{off, min(n, off+5), max(0, off-40), min(n, off+60)},
				{max(0, off-1), off, off, min(n, off+1)},
			} {
				d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Oops", Detail: "A detail long enough to be wrapped when a width is given to the writer.", Subject: at(tc[0], tc[1])}
				if tc[2] >= 0 {
					d.Context = at(tc[2], tc[3])
				}
				wrap := uint(0)
				if k%2 == 1 {
					wrap = 40
				}
				var want, got bytes.Buffer
				_ = hcl.NewDiagnosticTextWriter(&want, files, wrap, true).WriteDiagnostic(d)
				checked++
				if !writeWindowed(&got, f, idx, d, wrap) {
					continue
				}
				windowed++
				if got.String() != want.String() {
					t.Fatalf("%s, subject %v, context %v, wrap %d:\ngot:\n%s\nwant:\n%s", name, d.Subject, d.Context, wrap, got.String(), want.String())
				}
			}
		}
	}
	if windowed < checked/2 {
		t.Errorf("only %d of %d diagnostics rendered through a window; the test checks little", windowed, checked)
	}
}

// scannerPositions returns the position of each offset in src as HCL's
// range scanner counts lines and columns, an offset inside a character
// moved back to its start.
func scannerPositions(name string, src []byte) func(int) hcl.Pos {
	at := make([]hcl.Pos, len(src)+1)
	for i := range at {
		at[i].Byte = -1
	}
	at[0] = hcl.InitialPos
	sc := hcl.NewRangeScanner(src, name, bufio.ScanRunes)
	for sc.Scan() {
		at[sc.Range().End.Byte] = sc.Range().End
	}
	return func(off int) hcl.Pos {
		for at[off].Byte < 0 {
			off--
		}
		return at[off]
	}
}

// TestRenderWindowLargeFile renders a diagnostic in each of 1,000 tools: each
// goes through a window (HCL's writer alone scans the file from its start
// for each, half a minute in all), and every hundredth is checked against
// HCL's rendering from the whole file.
func TestRenderWindowLargeFile(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "tool \"t%d\" {\n  descripton = \"tool %d\"\n  template { text = \"hi\" }\n}\n", i, i)
	}
	src := []byte(b.String())
	idx := newLineIndex(src)
	f, _ := hclsyntax.ParseConfig(src, "big.hcl", hcl.InitialPos)
	for i, blk := range f.Body.(*hclsyntax.Body).Blocks {
		attr := blk.Body.Attributes["descripton"]
		if attr == nil {
			t.Fatalf("block %d has no descripton attribute", i)
		}
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported argument", Subject: attr.NameRange.Ptr()}
		var got, want bytes.Buffer
		if !writeWindowed(&got, f, idx, d, 0) {
			t.Fatalf("block %d: not rendered through a window", i)
		}
		if i%100 == 0 {
			_ = hcl.NewDiagnosticTextWriter(&want, map[string]*hcl.File{"big.hcl": f}, 0, true).WriteDiagnostic(d)
			if got.String() != want.String() {
				t.Fatalf("block %d:\ngot:\n%s\nwant:\n%s", i, got.String(), want.String())
			}
		}
	}
}

// TestWindowedUnusualDiagnostics checks diagnostics that once rendered
// differently through the window (found in review): a summary with a line
// that starts like the "on FILE line N" header, and a subject whose end
// comes before its start inside a context that covers it. Each must render
// as HCL's writer renders it from the whole file.
func TestWindowedUnusualDiagnostics(t *testing.T) {
	p := func(line, col, b int) hcl.Pos { return hcl.Pos{Line: line, Column: col, Byte: b} }
	for _, tc := range []struct {
		name string
		src  string
		d    *hcl.Diagnostic
	}{
		{"summary like a header", "a = 1\nb = 2\nc = 3\nd = 4\n", &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Bad value\n  on f.hcl line 3 (see below)", Detail: "D",
			Subject: &hcl.Range{Filename: "f.hcl", Start: p(3, 5, 16), End: p(3, 6, 17)}}},
		{"subject backwards", "a = 1\nb = 2\n\nc = 3\nd = 4\ne = 5\n", &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "S",
			Subject: &hcl.Range{Filename: "f.hcl", Start: p(5, 1, 20), End: p(2, 1, 6)},
			Context: &hcl.Range{Filename: "f.hcl", Start: p(2, 1, 6), End: p(6, 6, 30)}}},
		{"context backwards", "a = 1\nb = 2\n\nc = 3\nd = 4\ne = 5\n", &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "S",
			Subject: &hcl.Range{Filename: "f.hcl", Start: p(4, 1, 13), End: p(4, 2, 14)},
			Context: &hcl.Range{Filename: "f.hcl", Start: p(6, 6, 30), End: p(2, 1, 6)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]*hcl.File{"f.hcl": {Bytes: []byte(tc.src)}}
			var want, got bytes.Buffer
			_ = hcl.NewDiagnosticTextWriter(&want, files, 0, true).WriteDiagnostic(tc.d)
			writeDiagnostic(&got, files, map[string]*lineIndex{}, tc.d, 0)
			if got.String() != want.String() {
				t.Errorf("got:\n%s\nwant:\n%s", got.String(), want.String())
			}
		})
	}
}

// TestRenderLoneCR renders the diagnostics HCL's parser gives for files
// with carriage returns that no line feed follows. The parser counts no
// line at a lone CR, and HCL's writer, alone, numbered the source lines it
// shows as if it did: in every diagnostic, the line number of the header
// ("on t.hcl line N") must be the first source line's, and the source
// lines must be lines of the file, not all of it.
func TestRenderLoneCR(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "tool \"t%d\" {\n  description = \"tool %d\"\n}\n", i, i)
	}
	lf := b.String()
	for _, tc := range []struct{ name, src string }{
		// A stray CR ends line 4, then more mistakes follow it.
		{"stray CR", strings.Replace(lf, "\"tool 2\"\n", "\"tool 2\"\r", 1) + "x = \n\ny = [\n"},
		{"stray CRs at line starts", strings.Replace(lf, "\n  description = \"tool 9\"", "\n\r  description = \"tool 9\"", 1) + "\r}\n"},
		{"CRLF and a stray CR", strings.ReplaceAll(strings.Replace(lf, "\"tool 2\"\n", "\"tool 2\"\r", 1), "\n", "\r\n") + "x = \r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			orig := bytes.Clone(src)
			f, diags := hclsyntax.ParseConfig(src, "t.hcl", hcl.InitialPos)
			if len(diags) < 2 {
				t.Fatalf("want several diagnostics, got %d", len(diags))
			}
			var out bytes.Buffer
			Render(&out, map[string]*hcl.File{"t.hcl": f}, diags, false, 0)
			text := out.String()
			blocks := strings.Split(text, "\n  on t.hcl line ")[1:]
			if len(blocks) != len(diags) {
				t.Fatalf("%d diagnostics rendered with a header, want %d:\n%s", len(blocks), len(diags), text)
			}
			for i, blk := range blocks {
				var header, gutter int
				if _, err := fmt.Sscanf(blk, "%d", &header); err != nil {
					t.Fatalf("diagnostic %d: no line number in %q", i, blk)
				}
				lines := strings.SplitN(blk, "\n", 3)
				if len(lines) < 2 {
					t.Fatalf("diagnostic %d: no source line in %q", i, blk)
				}
				if _, err := fmt.Sscanf(strings.TrimLeft(lines[1], " "), "%d:", &gutter); err != nil {
					t.Fatalf("diagnostic %d: no numbered source line in %q", i, lines[1])
				}
				if gutter != header {
					t.Errorf("diagnostic %d (%s at %v): header line %d, first source line %d", i, diags[i].Summary, diags[i].Subject, header, gutter)
				}
				if len(lines[1]) > 80 {
					t.Errorf("diagnostic %d: a source line of %d bytes: %.100q", i, len(lines[1]), lines[1])
				}
			}
			if strings.Contains(text, "\r") {
				t.Error("a CR is in the output")
			}
			if !bytes.Equal(src, orig) {
				t.Error("Render changed the file's bytes")
			}
		})
	}
	// A file saved for classic Mac OS, with its one diagnostic (see
	// hcl.ExplainSyntaxErrors) on its first line: that line is shown, not
	// the whole file as one.
	classic := []byte(strings.ReplaceAll(lf, "\n", "\r"))
	first := bytes.IndexByte(classic, '\r')
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Carriage return without line feed", Detail: "Convert it.",
		Subject: &hcl.Range{Filename: "t.hcl", Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: 1 + first, Byte: first}}}
	var out bytes.Buffer
	Render(&out, map[string]*hcl.File{"t.hcl": {Bytes: classic}}, hcl.Diagnostics{d}, false, 0)
	want := "Error: Carriage return without line feed\n\n  on t.hcl line 1:\n   1: tool \"t1\" {\n      ^^^^^^^^^^^\n\nConvert it.\n\n"
	if out.String() != want {
		t.Errorf("classic Mac OS line ends:\ngot:\n%q\nwant:\n%q", out.String(), want)
	}
}

// TestRenderBinaryFile renders a diagnostic in a file with NUL bytes (a
// config saved in UTF-16): no source lines, so no NULs or stray bytes on
// the terminal, and the header and detail as for any file.
func TestRenderBinaryFile(t *testing.T) {
	src := []byte("\xFF\xFEt\x00o\x00o\x00l\x00\n\x00")
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Config file is UTF-16", Detail: "Save it as UTF-8.",
		Subject: &hcl.Range{Filename: "t.hcl", Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: 2, Byte: 2}}}
	f := &hcl.File{Bytes: src}
	var buf bytes.Buffer
	Render(&buf, map[string]*hcl.File{"t.hcl": f}, hcl.Diagnostics{d}, false, 0)
	want := "Error: Config file is UTF-16\n\n  on t.hcl line 1:\n  (source code not available)\n\nSave it as UTF-8.\n\n"
	if buf.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", buf.String(), want)
	}
	if !bytes.Equal(f.Bytes, src) {
		t.Error("Render changed the file's bytes")
	}
}

// TestRenderLongLine renders diagnostics on a line of 6,000 bytes, as in a
// minified JSON config: each source line shown is cut lineContext bytes
// around the range and marked with an ellipsis where cut, the carets stand
// under exactly the range's text, and the line number is the header's.
// Cuts inside a multi-byte character move to its start.
func TestRenderLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("a = 1\n")
	for i := 0; b.Len() < 6000; i++ {
		fmt.Fprintf(&b, `"k%d": "v%d", `, i, i)
	}
	b.WriteString("\nz = 2\n")
	src := []byte(b.String())
	lineStart := strings.Index(b.String(), "\n") + 1
	lineEnd := strings.LastIndex(b.String(), "\nz")
	pos := scannerPositions("t.hcl", src)
	for _, tc := range []struct {
		name       string
		start, end int
		cutStart   bool
		cutEnd     bool
	}{
		{"at the line's start", lineStart, lineStart + 4, false, true},
		{"in the middle", 3000, 3010, true, true},
		{"empty, in the middle", 3000, 3000, true, true},
		{"long, in the middle", 2000, 2400, true, true},
		{"at the line's end", lineEnd - 5, lineEnd, true, false},
		{"near the start", lineStart + 50, lineStart + 60, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Oops", Detail: "Fix it.",
				Subject: &hcl.Range{Filename: "t.hcl", Start: pos(tc.start), End: pos(tc.end)}}
			var out bytes.Buffer
			Render(&out, map[string]*hcl.File{"t.hcl": {Bytes: src}}, hcl.Diagnostics{d}, false, 0)
			lines := strings.Split(out.String(), "\n")
			if len(lines) < 5 || lines[2] != "  on t.hcl line 2:" {
				t.Fatalf("unexpected layout:\n%s", out.String())
			}
			source, carets := lines[3], lines[4]
			const gutter = "   2: "
			if !strings.HasPrefix(source, gutter) {
				t.Fatalf("source line %q, want it numbered 2", source)
			}
			text := source[len(gutter):]
			if got := strings.HasPrefix(text, ellipsis); got != tc.cutStart {
				t.Errorf("cut at the start: %v, want %v (%.60q)", got, tc.cutStart, text)
			}
			if got := strings.HasSuffix(text, ellipsis); got != tc.cutEnd {
				t.Errorf("cut at the end: %v, want %v", got, tc.cutEnd)
			}
			if max := tc.end - tc.start + 2*lineContext + 2*len(ellipsis); len(text) > max {
				t.Errorf("source line of %d bytes, want at most %d", len(text), max)
			}
			// The text under the carets is the range's (one character for
			// an empty range). The ellipsis takes one column.
			first, last := strings.Index(carets, "^"), strings.LastIndex(carets, "^")
			cols := []rune(text)
			from, to := first-len(gutter), last-len(gutter)+1
			if from < 0 || to > len(cols) {
				t.Fatalf("carets %q outside the line %q", carets, text)
			}
			want := string(src[tc.start:max(tc.end, tc.start+1)])
			if got := string(cols[from:to]); got != want {
				t.Errorf("carets under %q, want %q", got, want)
			}
		})
	}
	// Cuts that fall inside a character move to its start.
	wide := []byte("a = \"" + strings.Repeat("北京", 400) + "\"\n")
	wpos := scannerPositions("w.hcl", wide)
	for _, off := range []int{600, 601, 602, 1000} {
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Oops", Subject: &hcl.Range{Filename: "w.hcl", Start: wpos(off), End: wpos(off + 3)}}
		var out bytes.Buffer
		Render(&out, map[string]*hcl.File{"w.hcl": {Bytes: wide}}, hcl.Diagnostics{d}, false, 0)
		if !utf8.Valid(out.Bytes()) || !strings.Contains(out.String(), "   1: "+ellipsis) {
			t.Errorf("offset %d: %q", off, out.String())
		}
	}
}

// TestRenderLongLineEdges checks where long lines are cut and marked: only
// lines whose text (without its line break, LF or CRLF) is over longLine
// bytes, and at each end only where lineContext bytes of text or more would
// be left out; a cut that falls inside the first character of the line is
// no cut.
func TestRenderLongLineEdges(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		for _, n := range []int{longLine, longLine + 1, 400} {
			for _, p := range []int{lineContext, lineContext + 1, n - lineContext - 2, n - lineContext - 1} {
				line := strings.Repeat("x", n)
				src := []byte("a = 1" + eol + line + eol + "z = 2" + eol)
				ls := len("a = 1" + eol)
				wantStart := n > longLine && p > lineContext
				wantEnd := n > longLine && p+1+lineContext < n
				checkCuts(t, fmt.Sprintf("eol %q, line %d, range at %d", eol, n, p), src, ls+p, ls+p+1, wantStart, wantEnd)
			}
		}
	}
	// "北" is 3 bytes: 80 bytes before offset 82 of the line is inside it.
	src := []byte("a = 1\n北" + strings.Repeat("x", 300) + "\n")
	checkCuts(t, "cut inside the line's first character", src, 6+82, 6+83, false, true)
}

// checkCuts renders a diagnostic over src[start:end] on line 2 and checks
// which ends of its source line are marked as cut.
func checkCuts(t *testing.T, name string, src []byte, start, end int, wantStart, wantEnd bool) {
	t.Helper()
	out := renderRange(src, start, end)
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[3], "   2: ") {
		t.Fatalf("%s: unexpected layout:\n%s", name, out.String())
	}
	text := strings.TrimSuffix(lines[3][len("   2: "):], "\r")
	if got := strings.HasPrefix(text, ellipsis); got != wantStart {
		t.Errorf("%s: cut at the start %v, want %v", name, got, wantStart)
	}
	if got := strings.HasSuffix(text, ellipsis); got != wantEnd {
		t.Errorf("%s: cut at the end %v, want %v", name, got, wantEnd)
	}
}

// renderRange renders one error whose subject is bytes start to end of
// src, a file named t.hcl.
func renderRange(src []byte, start, end int) *bytes.Buffer {
	pos := scannerPositions("t.hcl", src)
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Oops", Subject: &hcl.Range{Filename: "t.hcl", Start: pos(start), End: pos(end)}}
	var out bytes.Buffer
	Render(&out, map[string]*hcl.File{"t.hcl": {Bytes: src}}, hcl.Diagnostics{d}, false, 0)
	return &out
}

// TestRenderNULInText: a NUL or two in a string or a comment of a UTF-8
// config leave its source lines shown; only a file that is mostly NULs is
// shown without them (TestRenderBinaryFile).
func TestRenderNULInText(t *testing.T) {
	src := []byte("tool \"a\" {\n  description = \"x\x00y\" # \x00\n  bogus = 1\n}\n")
	off := bytes.Index(src, []byte("bogus"))
	out := renderRange(src, off, off+5)
	if !strings.Contains(out.String(), "   3:   bogus = 1\n        ^^^^^\n") {
		t.Errorf("got:\n%s", out.String())
	}
}

// TestRenderControlCharacters: control characters in a file's text (an ESC
// or a BEL that a terminal would act on, a NUL) are shown as "?", and a
// UTF-16 file is shown without source lines even when, being mostly CJK
// text, it has few NULs.
func TestRenderControlCharacters(t *testing.T) {
	src := []byte("a = \"\x1b[31mred\x07\x00\u009b2J\" + nope\n")
	off := bytes.Index(src, []byte("nope"))
	out := renderRange(src, off, off+4)
	if want := "   1: a = \"?[31mred????2J\" + nope\n                             ^^^^\n"; !strings.Contains(out.String(), want) {
		t.Errorf("got:\n%q\nwant it to contain:\n%q", out.String(), want)
	}
	// UTF-16 LE with a mark: 百度 is 0x767E 0x5EA6, no NUL at all.
	u16 := []byte{0xFF, 0xFE, 0x7E, 0x76, 0xA6, 0x5E, 0x07, 0x4E, 0x1B, 0x6D}
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Config file is UTF-16", Subject: &hcl.Range{Filename: "u.hcl", Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: 2, Byte: 2}}}
	out.Reset()
	Render(out, map[string]*hcl.File{"u.hcl": {Bytes: u16}}, hcl.Diagnostics{d}, false, 0)
	if !strings.Contains(out.String(), "(source code not available)") {
		t.Errorf("got:\n%q", out.String())
	}
}
