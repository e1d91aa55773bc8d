package hcl

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/toolhost/toolhost/internal/parallel"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// trickyBlock is a block whose text has braces, quotes and block-like lines
// in places a naive splitter would be fooled by.
const trickyBlock = `tool "t%d" {
  # a comment with a brace }
  // another { comment
  /* a block comment
     tool "fake" { } */
  description = "braces } { in a string, an escaped \" quote, $${literal} and %%%%{literal}"
  param "p" { type = string }
  template {
    text = "${param.p == "}" ? "{" : "x${"}"}y"} done"
  }
}
tool "h%d" {
  description = <<EOT
A heredoc with a closing brace:
}
tool "not_a_block" {
EOT
  param "q" {
    type    = string
    default = <<-EOF
      indented }
      EOF
  }
  template { text = "${param.q}" }
}
`

func trickyConfig(n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, trickyBlock, i, i)
	}
	return []byte(b.String())
}

// parsePieces parses src cut at the given offsets (each the start of a
// line) and joins the pieces into one body, as parseFiles does for the
// cuts it chooses: the tests choose their own. It reports false when a
// piece has any diagnostic.
func parsePieces(name string, src []byte, cuts []int) (*hcl.File, bool) {
	bounds := append(append([]int{0}, cuts...), len(src))
	files := make([]*hcl.File, len(bounds)-1)
	failed := make([]bool, len(files))
	lines := pieceLines(src, bounds)
	parallel.For(len(files), 1, func(i int) {
		files[i], failed[i] = parsePiece(name, src, bounds[i], bounds[i+1], lines[i])
	})
	return joinPieces(src, files, failed)
}

// mustParseInPieces parses src as parseFile does, and fails the test when
// it has errors or was parsed whole.
func mustParseInPieces(t *testing.T, name string, src []byte) (*hcl.File, pieceNav) {
	t.Helper()
	f, diags := parseFile(name, src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	nav, ok := f.Nav.(pieceNav)
	if !ok {
		t.Fatalf("%s (%d bytes) was parsed whole", name, len(src))
	}
	return f, nav
}

func TestParsePiecesMatchesWholeParse(t *testing.T) {
	src := trickyConfig(300)
	if len(src) < splitMin {
		t.Fatalf("fixture of %d bytes is below the split threshold", len(src))
	}
	whole, diags := hclsyntax.ParseConfig(src, "big.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("the fixture does not parse: %s", diags.Error())
	}
	cuts := splitTopLevel(src, 4)
	if len(cuts) != 3 {
		t.Fatalf("splitTopLevel found %d cuts, want 3", len(cuts))
	}
	for _, c := range cuts {
		if !strings.HasPrefix(string(src[c:]), "tool \"") {
			t.Errorf("cut at %d is not at a block start: %q", c, src[c:c+20])
		}
	}
	pieces, ok := parsePieces("big.hcl", src, cuts)
	if !ok {
		t.Fatal("parsePieces failed on a valid file")
	}
	wb, pb := whole.Body.(*hclsyntax.Body), pieces.Body.(*hclsyntax.Body)
	if len(wb.Blocks) != len(pb.Blocks) || len(wb.Blocks) != 600 {
		t.Fatalf("blocks: whole %d, pieces %d, want 600", len(wb.Blocks), len(pb.Blocks))
	}
	for i := range wb.Blocks {
		w, p := wb.Blocks[i], pb.Blocks[i]
		if w.Type != p.Type || strings.Join(w.Labels, ",") != strings.Join(p.Labels, ",") || w.DefRange() != p.DefRange() || w.Body.SrcRange != p.Body.SrcRange {
			t.Fatalf("block %d differs: whole %s %v %v, pieces %s %v %v", i, w.Type, w.Labels, w.DefRange(), p.Type, p.Labels, p.DefRange())
		}
	}
	// A diagnostic in a piece names the same place as in the whole file.
	if got := pieceNav([]*hcl.File{pieces}).ContextString(wb.Blocks[599].Body.SrcRange.Start.Byte + 5); got == "" {
		t.Error("no context string for an offset in the last piece")
	}
}

// TestParsePiecesOfRepoFiles parses every .hcl file of the repository in
// 2 to 6 pieces and checks that the body is exactly the whole-file parse's:
// every block, attribute, expression and range. Small files are split too,
// as a start of examples/tools.hcl is.
func TestParsePiecesOfRepoFiles(t *testing.T) {
	var paths []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".hcl") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 20 {
		t.Fatalf("found %d .hcl files in the repository; the walk is broken", len(paths))
	}
	split := 0
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		whole, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
		for pieces := 2; pieces <= 6; pieces++ {
			cuts := splitTopLevel(src, pieces)
			if len(cuts) == 0 {
				continue
			}
			got, ok := parsePieces(path, src, cuts)
			if ok && len(diags) > 0 {
				t.Errorf("%s in %d pieces: the pieces parsed, but the whole file has diagnostics: %v", path, pieces, diags)
				continue
			}
			if !ok {
				continue
			}
			split++
			if !reflect.DeepEqual(got.Body, whole.Body) {
				t.Errorf("%s in %d pieces (cuts %v): the body differs from the whole-file parse", path, pieces, cuts)
			}
		}
	}
	if split < 20 {
		t.Errorf("only %d splits of repository files parsed; the test checks little", split)
	}
}

// TestParseFileSplitsSmallFiles checks that a start of examples/tools.hcl
// parses it in pieces when there are two processors, and that the result
// is the whole-file parse.
func TestParseFileSplitsSmallFiles(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	path := filepath.Join("..", "examples", "tools.hcl")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := mustParseInPieces(t, path, src)
	whole, _ := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if !reflect.DeepEqual(f.Body, whole.Body) {
		t.Error("the body parsed in pieces differs from the whole-file parse")
	}
	// Under splitMin, or with one processor, a file is parsed whole.
	if f, _ := parseFile("small.hcl", src[:splitMin-1]); f != nil {
		if _, ok := f.Nav.(pieceNav); ok {
			t.Errorf("a file of %d bytes was parsed in pieces", splitMin-1)
		}
	}
	runtime.GOMAXPROCS(1)
	if f, _ := parseFile(path, src); f != nil {
		if _, ok := f.Nav.(pieceNav); ok {
			t.Error("examples/tools.hcl was parsed in pieces with one processor")
		}
	}
}

// TestParseFileLargeInSmallPieces checks that a large file is cut into
// pieces of about pieceMax, however many processors there are (two or
// more), and that the pieces join into the whole-file parse, line numbers
// included.
func TestParseFileLargeInSmallPieces(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	src := []byte(testconfig.Tools(300, ""))
	b := pieceBounds("big.hcl", src)
	// Each cut is made at the first block end past the target size, so
	// pieces come out a little over it.
	if want := len(src) / (2 * pieceMax); len(b)-1 < want {
		t.Fatalf("%d bytes cut into %d pieces, want %d or more", len(src), len(b)-1, want)
	}
	for k := 0; k+1 < len(b); k++ {
		// A piece ends at the first block end past the target size: it
		// may pass pieceMax by up to one block.
		if size := b[k+1] - b[k]; size > 2*pieceMax {
			t.Errorf("piece %d is %d bytes, over twice pieceMax", k, size)
		}
	}
	f, _ := mustParseInPieces(t, "big.hcl", src)
	whole, _ := hclsyntax.ParseConfig(src, "big.hcl", hcl.InitialPos)
	if !reflect.DeepEqual(f.Body, whole.Body) {
		t.Error("the body parsed in pieces differs from the whole-file parse")
	}
	last := f.Body.(*hclsyntax.Body).Blocks
	if got, want := last[len(last)-1].DefRange().Start.Line, whole.Body.(*hclsyntax.Body).Blocks[len(last)-1].DefRange().Start.Line; got != want || got < 1000 {
		t.Errorf("the last block starts on line %d, want %d", got, want)
	}
}

// TestParseFileAttributesOnly checks a large file of top-level attributes
// and no blocks: the joined body is the whole-file parse's, an empty list
// of blocks included.
func TestParseFileAttributesOnly(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "attr_%d = { a = \"}\", b = [1, 2, { c = 3 }] } # %d\n", i, i)
	}
	src := []byte(b.String())
	f, _ := mustParseInPieces(t, "attrs.hcl", src)
	whole, _ := hclsyntax.ParseConfig(src, "attrs.hcl", hcl.InitialPos)
	if !reflect.DeepEqual(f.Body, whole.Body) {
		t.Errorf("the body parsed in pieces differs from the whole-file parse (blocks %#v, want %#v)",
			f.Body.(*hclsyntax.Body).Blocks, whole.Body.(*hclsyntax.Body).Blocks)
	}
}

// TestPieceNavAtCuts checks that diagnostics name the block they are in
// ("in tool ...") as for a whole-file parse, also for a block that starts
// exactly at a cut: blocks written back to back, with no blank line
// between them, as generated configs often are.
func TestPieceNavAtCuts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "tool \"t%d\" {\n  description = \"a tool with no backend block yet, number %d\"\n}\n", i, i)
	}
	src := []byte(b.String())
	_, nav := mustParseInPieces(t, "gen.hcl", src)
	whole, _ := hclsyntax.ParseConfig(src, "gen.hcl", hcl.InitialPos)
	wholeNav := whole.Nav.(interface{ ContextString(int) string })
	atCut := 0
	for _, blk := range whole.Body.(*hclsyntax.Body).Blocks {
		for _, off := range []int{blk.TypeRange.Start.Byte, blk.OpenBraceRange.Start.Byte, blk.Body.SrcRange.End.Byte - 1} {
			if got, want := nav.ContextString(off), wholeNav.ContextString(off); got != want {
				t.Errorf("offset %d (line %d): context %q, want %q", off, blk.TypeRange.Start.Line, got, want)
			}
		}
		for _, p := range nav[1:] {
			if p.Body.(*hclsyntax.Body).SrcRange.Start.Byte == blk.TypeRange.Start.Byte {
				atCut++
			}
		}
	}
	if atCut == 0 {
		t.Error("no block starts at a cut; the test checks nothing")
	}
}

// TestPieceBoundsMinimum checks that every piece but the last is pieceMin
// bytes at least, and that a file is not split into one large piece and a
// short one: a large block followed by a short comment is not worth a
// goroutine of its own. A short last piece after two or more large ones
// is kept: it helps share the work out.
func TestPieceBoundsMinimum(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	big := "tool \"big\" {\n  description = \"" + strings.Repeat("x", 4200) + "\"\n  template { text = \"hi\" }\n}\n"
	for _, tc := range []struct {
		name       string
		src        string
		wantPieces int
	}{
		{"one block and a comment", big + "# end\n", 0},
		{"one block and a short block", big + "tool \"b\" {\n}\n", 0},
		{"two large blocks", big + strings.Replace(big, "big", "big2", 1), 2},
		{"two large blocks and a short one", big + strings.Replace(big, "big", "big2", 1) + "tool \"b\" {\n}\n", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := pieceBounds("c.hcl", []byte(tc.src))
			if got := max(0, len(b)-1); got != tc.wantPieces {
				t.Fatalf("bounds %v for %d bytes: %d pieces, want %d", b, len(tc.src), got, tc.wantPieces)
			}
			for k := 0; k+2 < len(b); k++ {
				if b[k+1]-b[k] < pieceMin {
					t.Errorf("bounds %v: piece %d is %d bytes, under pieceMin", b, k, b[k+1]-b[k])
				}
			}
		})
	}
}

// TestParseFilesSeveral checks that several files, each large enough to
// be cut, are parsed as they would be one by one, in their order, with a
// syntax error in one of them reported as HCL reports it.
func TestParseFilesSeveral(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	names := []string{"a.hcl", "b.hcl", "c.hcl", "d.hcl"}
	srcs := [][]byte{trickyConfig(12), trickyConfig(7), append(trickyConfig(9), "tool \"broken\" {\n  description = \"x\n}\n"...), []byte("tool \"small\" {\n}\n")}
	files, diags := parseFiles(names, srcs)
	for i, name := range names {
		want, wantDiags := hclsyntax.ParseConfig(srcs[i], name, hcl.InitialPos)
		if diags[i].Error() != wantDiags.Error() {
			t.Errorf("%s: diagnostics %q, want %q", name, diags[i].Error(), wantDiags.Error())
		}
		if wantDiags.HasErrors() {
			continue
		}
		if !reflect.DeepEqual(files[i].Body, want.Body) {
			t.Errorf("%s: the body differs from the whole-file parse", name)
		}
		if _, split := files[i].Nav.(pieceNav); split != (len(srcs[i]) >= splitMin) {
			t.Errorf("%s (%d bytes): parsed in pieces %v", name, len(srcs[i]), split)
		}
	}
}

func TestSplitTopLevelRefusesUnbalanced(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"unclosed block", strings.Repeat("tool \"a\" {\n}\n", 100) + "tool \"b\" {\n"},
		{"unclosed string", strings.Repeat("tool \"a\" {\n}\n", 100) + "x = \"abc\n"},
		{"unclosed heredoc", strings.Repeat("tool \"a\" {\n}\n", 100) + "x = <<EOT\nabc\n"},
		{"unclosed comment", strings.Repeat("tool \"a\" {\n}\n", 100) + "/* abc\n"},
		{"stray brace", strings.Repeat("tool \"a\" {\n}\n", 100) + "}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if cuts := splitTopLevel([]byte(tc.src), 4); cuts != nil {
				t.Errorf("cuts = %v, want none", cuts)
			}
		})
	}
}

// TestLoadLargeFileDiagnostics checks that a large file with an error gets
// exactly the whole-file diagnostics (the piecewise parse falls back).
func TestLoadLargeFileDiagnostics(t *testing.T) {
	src := append(trickyConfig(300), []byte("tool \"broken\" {\n  description = \"x\n}\n")...)
	f, diags := parseFile("big.hcl", src)
	_, want := hclsyntax.ParseConfig(src, "big.hcl", hcl.InitialPos)
	if f == nil || diags.Error() != want.Error() || !diags.HasErrors() {
		t.Fatalf("diagnostics differ:\n got %s\nwant %s", diags.Error(), want.Error())
	}
}

func BenchmarkParseLarge(b *testing.B) {
	src := trickyConfig(1000)
	b.SetBytes(int64(len(src)))
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			hclsyntax.ParseConfig(src, "big.hcl", hcl.InitialPos)
		}
	})
	b.Run("pieces", func(b *testing.B) {
		for b.Loop() {
			parseFile("big.hcl", src)
		}
	})
}

// TestLimitSyntaxErrors checks that a file's syntax errors past the first
// MaxSyntaxErrors become one error that counts them and points at the
// first of them, and that fewer are left alone.
func TestLimitSyntaxErrors(t *testing.T) {
	diag := func(sev hcl.DiagnosticSeverity, line int) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: sev, Summary: "Invalid multi-line string",
			Subject: &hcl.Range{Filename: "t.hcl", Start: hcl.Pos{Line: line, Column: 1}, End: hcl.Pos{Line: line, Column: 2}}}
	}
	many := func(errs, warns int) hcl.Diagnostics {
		var ds hcl.Diagnostics
		for i := range errs {
			ds = append(ds, diag(hcl.DiagError, i+1))
		}
		for i := range warns {
			ds = append(ds, diag(hcl.DiagWarning, errs+i+1))
		}
		return ds
	}
	for _, tc := range []struct {
		name    string
		in      hcl.Diagnostics
		wantLen int
		detail  string // of the last diagnostic, when limited
		sev     hcl.DiagnosticSeverity
	}{
		{"none", nil, 0, "", 0},
		{"ten", many(10, 0), 10, "", 0},
		{"eleven, all shown rather than one counted", many(11, 0), 11, "", 0},
		{"twelve", many(12, 0), 11, "t.hcl has 2 more syntax errors, from here on,", hcl.DiagError},
		{"seventeen thousand", many(17000, 0), 11, "t.hcl has 16990 more syntax errors, from here on,", hcl.DiagError},
		{"errors and warnings", many(15, 3), 11, "t.hcl has 5 more syntax errors and 3 warnings, from here on,", hcl.DiagError},
		{"one of each", many(12, 1), 11, "t.hcl has 2 more syntax errors and 1 warning, from here on,", hcl.DiagError},
		{"one error and a warning", many(11, 1), 11, "t.hcl has 1 more syntax error and 1 warning, from here on,", hcl.DiagError},
		{"warnings only past the limit", many(10, 5), 11, "t.hcl has 5 more syntax warnings, from here on,", hcl.DiagWarning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LimitSyntaxErrors("t.hcl", tc.in)
			if len(got) != tc.wantLen {
				t.Fatalf("%d diagnostics, want %d", len(got), tc.wantLen)
			}
			if tc.detail == "" {
				if len(got) > 0 && got[len(got)-1] != tc.in[len(tc.in)-1] {
					t.Error("the diagnostics were changed")
				}
				return
			}
			last := got[len(got)-1]
			if !strings.HasPrefix(last.Detail, tc.detail) || last.Severity != tc.sev {
				t.Errorf("last: %v %q, want %v and a detail starting %q", last.Severity, last.Detail, tc.sev, tc.detail)
			}
			if last.Subject == nil || last.Subject.Start.Line != MaxSyntaxErrors+1 {
				t.Errorf("last subject %v, want the first error not shown (line %d)", last.Subject, MaxSyntaxErrors+1)
			}
			for i := range MaxSyntaxErrors {
				if got[i] != tc.in[i] {
					t.Errorf("diagnostic %d is not the original's %d", i, i)
				}
			}
		})
	}
}

// TestExplainLoneCR loads files with carriage returns that no line feed
// follows: HCL's "Invalid character" at each becomes one error that names
// the cause, the line and the fix, and every other diagnostic is kept, in
// its place. A file with no line feed at all is an error even when HCL
// reads it as one comment; a lone CR in a comment, or in a JSON file, is
// left alone.
func TestExplainLoneCR(t *testing.T) {
	tool := func(name string) string {
		return fmt.Sprintf("tool %q {\n  description = \"x\"\n  template {\n    text = \"hi\"\n  }\n}\n", name)
	}
	lonely := func(s string) string { return strings.ReplaceAll(s, "\n", "\r") }
	classic := lonely(tool("a") + tool("b"))
	stray := tool("a") + strings.Replace(tool("b"), "\"hi\"\n", "\"hi\"\r", 1)
	twoStray := strings.Replace(stray, "\"x\"\n", "\"x\"\r", 1)
	lineStart := strings.Replace(tool("a"), "\n  template", "\n\r  template", 1)
	inComment := "# from an old Mac\r# notes\n" + strings.Replace(tool("a"), "\"x\"\n", "\"x\"\r", 1)
	crlf := strings.ReplaceAll(tool("a"), "\n", "\r\n")
	unclosed := tool("a") + "tool \"b\" {\n  description = \"x\n}\n" + "c = 1\r"
	const explainedSummary = "Carriage return without line feed"
	for _, tc := range []struct {
		name, file, src string
		want            []string // the summaries, in order
		at              [2]int   // the subject's start: line and byte; classic files: the first line
		detail          []string // in the explanation's detail
	}{
		{"classic Mac OS line ends", "tools.hcl", classic, []string{explainedSummary}, [2]int{1, 0},
			[]string{"ends its lines with a carriage return (CR) alone", `tr '\r' '\n' < `}},
		{"classic, read by HCL as one comment", "tools.hcl", lonely("# my tools\n" + tool("a")), []string{explainedSummary}, [2]int{1, 0},
			[]string{"ends its lines with a carriage return (CR) alone"}},
		{"stray CR", "tools.hcl", stray, []string{explainedSummary}, [2]int{10, strings.Index(stray, "\r")},
			[]string{"Line 10 of ", "has a carriage return (CR) that no line feed (LF) follows, where the caret points", "Remove it"}},
		{"two stray CRs", "tools.hcl", twoStray, []string{explainedSummary}, [2]int{2, strings.Index(twoStray, "\r")},
			[]string{"Line 2 of ", "The file has 2 carriage returns without a line feed."}},
		{"a CR that starts a line", "tools.hcl", lineStart, []string{explainedSummary}, [2]int{3, strings.Index(lineStart, "\r")},
			[]string{"Line 3 of "}},
		// The parser reads the first CR as part of the comment, and
		// counts no line at it.
		{"a CR in a comment first", "tools.hcl", inComment, []string{explainedSummary}, [2]int{3, strings.LastIndex(inComment, "\r")},
			[]string{"Line 3 of ", "The file has 2 carriage returns"}},
		{"CRLF line ends", "tools.hcl", crlf, nil, [2]int{}, nil},
		{"JSON, a CR as whitespace", "tools.hcl.json", "{\"tool\": {\"a\": {\"description\": \"x\",\r\"template\": {\"text\": \"hi\"}}}}", nil, [2]int{}, nil},
		{"another error kept", "tools.hcl", unclosed, []string{"Invalid multi-line string", explainedSummary}, [2]int{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags := Load([]string{path}, nil)
			var got []string
			for _, d := range diags {
				got = append(got, d.Summary)
			}
			// An unclosed string makes HCL report more after it: the
			// first error is checked, and that the CR is explained once.
			if tc.name == "another error kept" {
				explained := 0
				for _, s := range got {
					if s == "Invalid character" {
						t.Errorf("an Invalid character is left: %q", got)
					}
					if s == tc.want[1] {
						explained++
					}
				}
				if len(got) < 2 || got[0] != tc.want[0] || explained != 1 {
					t.Errorf("summaries %q, want %q first and %q once", got, tc.want[0], tc.want[1])
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("summaries %q, want %q\n%s", got, tc.want, diags.Error())
			}
			if tc.want == nil {
				return
			}
			d := diags[0]
			s := d.Subject
			if s == nil || s.Filename != path || s.Start.Line != tc.at[0] || s.Start.Byte != tc.at[1] || s.End.Byte <= s.Start.Byte || s.End.Byte > len(tc.src) {
				t.Fatalf("subject %+v, want one that starts on line %d at byte %d", s, tc.at[0], tc.at[1])
			}
			if tc.at[1] > 0 && (tc.src[s.Start.Byte] != '\r' || s.End.Byte != s.Start.Byte+1) {
				t.Errorf("subject %+v, want the CR", s)
			}
			for _, want := range tc.detail {
				if !strings.Contains(d.Detail, want) {
					t.Errorf("detail %q lacks %q", d.Detail, want)
				}
			}
		})
	}
	// Only a CR after # or // on its line can be in a line comment: the
	// file is lexed again only then.
	for src, want := range map[string]bool{"a = 1\rb = 2\n": false, "a = \"x\" # c\rb\n": true, "a = 1 // c\r\n": false, "x\n// c\rb\n": true, "# c\na = 1\rb\n": false} {
		if got := crAfterCommentMark([]byte(src)); got != want {
			t.Errorf("crAfterCommentMark(%q) = %v, want %v", src, got, want)
		}
	}
	if got := shorten([]byte(strings.Repeat("é", 70)), 60); got != strings.Repeat("é", 60)+"…" {
		t.Errorf("shorten: %q", got)
	}
	// Control characters, which a terminal would act on, are not quoted.
	if got := shorten([]byte("\x1b]0;pwned\x07\u009b2J x = 1"), 60); got != "?]0;pwned??2J x = 1" {
		t.Errorf("shorten: %q", got)
	}
	// A relative name that starts with "-" is not an option to tr or mv.
	for in, want := range map[string]string{"-tools.hcl": "./-tools.hcl", "tools.hcl": "tools.hcl", "/a/-b.hcl": "/a/-b.hcl"} {
		if got, cmd := rewriteCommand("cat", in), "cat < "+want+" > "+want+".new && mv "+want+".new "+want; got != cmd {
			t.Errorf("rewriteCommand(cat, %q) = %q, want %q", in, got, cmd)
		}
	}
}

// TestExplainUTF16 loads a config saved in UTF-16, with and without a byte
// order mark, in both byte orders: HCL's errors at every other byte become
// one error that names the encoding and gives the commands that convert it.
// Text that only looks a little like UTF-16 keeps HCL's own errors.
func TestExplainUTF16(t *testing.T) {
	text := "tool \"a\" {\n  description = \"x\"\n  template {\n    text = \"hi\"\n  }\n}\n"
	utf16 := func(bom bool, bigEndian bool) string {
		var b []byte
		if bom {
			b = append(b, 0xFF, 0xFE)
		}
		for _, r := range text { // ASCII only
			b = append(b, byte(r), 0)
		}
		if bigEndian {
			for i := 0; i+1 < len(b); i += 2 {
				b[i], b[i+1] = b[i+1], b[i]
			}
		}
		return string(b)
	}
	for _, tc := range []struct {
		name, src string
		want      []string // in the detail; nil: not explained
	}{
		{"little-endian with BOM", utf16(true, false), []string{"(little-endian), as Windows PowerShell 5 writes", "Get-Content -Encoding Unicode -LiteralPath ", "iconv -f UTF-16LE -t UTF-8 < "}},
		{"big-endian with BOM", utf16(true, true), []string{"(big-endian); HCL files are UTF-8", "Get-Content -Encoding BigEndianUnicode -LiteralPath ", "iconv -f UTF-16BE -t UTF-8 < "}},
		{"little-endian without BOM", utf16(false, false), []string{"(little-endian)", "iconv -f UTF-16LE"}},
		{"big-endian without BOM", utf16(false, true), []string{"(big-endian)", "iconv -f UTF-16BE"}},
		{"UTF-32 little-endian", "\xFF\xFE\x00\x00t\x00\x00\x00", nil},
		{"a NUL in UTF-8 text", "a = \"x\x00y\"\nb = 1\nc = 2\nd = 3\n", nil},
		{"short", "a\x00", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tools.hcl")
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags := Load([]string{path}, nil)
			if !diags.HasErrors() {
				t.Fatal("no errors")
			}
			explained := len(diags) == 1 && diags[0].Summary == "Config file is UTF-16"
			if tc.want == nil {
				if explained {
					t.Fatalf("explained as UTF-16: %s", diags[0].Detail)
				}
				return
			}
			if !explained {
				t.Fatalf("not explained:\n%s", FormatDiagnostics(diags))
			}
			d := diags[0]
			for _, s := range append(tc.want, path+" is encoded in UTF-16") {
				if !strings.Contains(d.Detail, s) {
					t.Errorf("detail %q lacks %q", d.Detail, s)
				}
			}
			if d.Subject == nil || d.Subject.Filename != path || d.Subject.Start.Byte != 0 || d.Subject.End.Byte != 2 {
				t.Errorf("subject %+v, want the file's first two bytes", d.Subject)
			}
		})
	}
	for _, tc := range []struct{ in, want string }{
		{"tools.hcl", "tools.hcl"},
		{`C:\cfg\tools.hcl`, `C:\cfg\tools.hcl`},
		{"my tools.hcl", "'my tools.hcl'"},
		{"it's.hcl", "'it''s.hcl'"},
	} {
		if got := psQuote(tc.in); got != tc.want {
			t.Errorf("psQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestExplainFullWidth loads configs with the punctuation an input method
// for Chinese types unless switched to half-width: HCL's "Invalid
// character" gets a detail that names the character and the ASCII one to
// type. Curly quotes keep HCL's own explanation, and full-width text inside
// a string is just text.
func TestExplainFullWidth(t *testing.T) {
	tool := func(line string) string {
		return "tool \"a\" {\n" + line + "\n  template {\n    text = \"hi\"\n  }\n}\n"
	}
	for _, tc := range []struct {
		name, src string
		want      string // in the detail of the Invalid character error; "": the config is valid
	}{
		{"full-width equals", tool(`  description ＝ "x"`), `This is the full-width ＝ (U+FF1D), as an input method for Chinese, Japanese or Korean types it; HCL reads the ASCII "=" here.`},
		{"full-width comma", tool(`  annotations { read_only = true， }`), `(U+FF0C)`},
		{"ideographic space", tool("  description\u3000= \"x\""), `This is an ideographic space (U+3000)`},
		{"CJK bracket", tool(`  description = 【"x"]`), `HCL reads the ASCII "[" here.`},
		{"full-width apostrophe", tool(`  description = ＇x＇`), `HCL reads the ASCII double quote (") here.`},
		{"full-width digit", tool(`  description = "x"` + "\n  timeout = １"), `(U+FF11), as an input method for Chinese, Japanese or Korean types it; HCL reads the ASCII "1" here.`},
		{"full-width tilde", tool(`  description ～ "x"`), `(U+FF5E), as an input method for Chinese, Japanese or Korean types it; HCL reads only ASCII punctuation.`},
		{"curly quotes", tool(`  description = “x”`), `"Curly quotes" are not valid here.`},
		{"inside a string", tool(`  description = "百度热榜，实时＝更新　【热】"`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tc.src, nil)
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("unexpected errors:\n%s", FormatDiagnostics(diags))
				}
				return
			}
			for _, d := range diags {
				if d.Summary == "Invalid character" {
					if !strings.Contains(d.Detail, tc.want) {
						t.Errorf("detail %q lacks %q", d.Detail, tc.want)
					}
					return
				}
			}
			t.Fatalf("no Invalid character error:\n%s", FormatDiagnostics(diags))
		})
	}
}

// TestLoadJSONWithBOM loads a JSON config that starts with a UTF-8 byte
// order mark, as Windows PowerShell 5 writes with -Encoding utf8 and iconv
// leaves when it converts a UTF-16 file that had one: it loads as it does
// without, its file keeps its own bytes, and a mistake in it is found
// where it is.
func TestLoadJSONWithBOM(t *testing.T) {
	const bom = "\xEF\xBB\xBF"
	good := `{"tool": {"a": {"description": "x", "template": {"text": "hi"}}}}` + "\n"
	dir := writeFiles(t, map[string]string{"good.hcl.json": bom + good, "bad.hcl.json": bom + strings.Replace(good, "description", "descripton", 1)})
	path := filepath.Join(dir, "good.hcl.json")
	cfg, diags := Load([]string{path}, nil)
	if diags.HasErrors() || len(cfg.Tools) != 1 {
		t.Fatalf("%d tools:\n%s", len(cfg.Tools), FormatDiagnostics(diags))
	}
	if string(cfg.Files[path].Bytes) != bom+good {
		t.Errorf("the file's bytes are %q", cfg.Files[path].Bytes)
	}
	_, diags = Load([]string{filepath.Join(dir, "bad.hcl.json")}, nil)
	// The byte order mark takes no column, as in a native-syntax file.
	if len(diags) != 1 || diags[0].Subject == nil || diags[0].Subject.Start.Byte != strings.Index(bom+good, `"description"`) ||
		diags[0].Subject.Start.Column != 1+strings.Index(good, `"description"`) {
		t.Errorf("want one error at the misspelt name, byte %d, column %d:\n%s", strings.Index(bom+good, `"description"`), 1+strings.Index(good, `"description"`), FormatDiagnostics(diags))
	}
}

// TestHiddenInComments: a lone CR in a line comment of a file with LFs
// hides the text after it from HCL, which reads it as part of the comment,
// while an editor shows it as config. That is an error pointing at the
// hidden text; a CR with only spaces after it, or in a block comment, is
// not.
func TestHiddenInComments(t *testing.T) {
	tool := func(name string) string {
		return fmt.Sprintf("tool %q {\n  description = \"x\"\n  template {\n    text = \"hi\"\n  }\n}\n", name)
	}
	hidden := tool("a") + "// second tool\r" + strings.ReplaceAll(tool("b"), "\n", "\r") + "\n"
	for _, tc := range []struct {
		name, src string
		tools     int    // when valid
		text      string // the hidden text the error points at
	}{
		{"a tool after a CR in a comment", hidden, 0, `tool "b" {`},
		{"after a #", strings.Replace(tool("a"), "  template {\n", "  # the template\r  template {\n", 1), 0, "template {"},
		{"a comment after the CR", strings.Replace(tool("a"), "  template {\n", "  # the template\r  # more\n  template {\n", 1), 1, ""},
		{"spaces after the CR", strings.Replace(tool("a"), "  template {\n", "  # the template\r  \n  template {\n", 1), 1, ""},
		{"a block comment after the CR", strings.Replace(tool("a"), "  template {\n", "  # the template\r  /* note */\n  template {\n", 1), 1, ""},
		{"a combining accent before the CR", strings.Replace(tool("a"), "  template {\n", "  # caf\u0065\u0301\rx = 1\n  template {\n", 1), 0, "x = 1"},
		{"in a block comment", strings.Replace(tool("a"), "  template {\n", "  /* the\rtemplate */\n  template {\n", 1), 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, diags := loadString(t, tc.src, nil)
			if tc.text == "" {
				if diags.HasErrors() || len(cfg.Tools) != tc.tools {
					t.Fatalf("%d tools, want %d:\n%s", len(cfg.Tools), tc.tools, FormatDiagnostics(diags))
				}
				return
			}
			var found *hcl.Diagnostic
			for _, d := range diags {
				if d.Summary == "Text hidden in a comment" {
					found = d
				}
			}
			if found == nil {
				t.Fatalf("no hidden-text error:\n%s", FormatDiagnostics(diags))
			}
			s := found.Subject
			if got := tc.src[s.Start.Byte:s.End.Byte]; got != tc.text {
				t.Errorf("subject covers %q, want %q", got, tc.text)
			}
			if !strings.Contains(found.Detail, "`"+tc.text+"` and what follows it are ignored") {
				t.Errorf("detail %q", found.Detail)
			}
			// The column counts characters as HCL does: a letter and its
			// combining accent are one.
			line := tc.src[strings.LastIndex(tc.src[:s.Start.Byte], "\n")+1 : s.Start.Byte]
			if want := 1 + graphemes([]byte(line)); s.Start.Column != want {
				t.Errorf("column %d, want %d", s.Start.Column, want)
			}
		})
	}
}
