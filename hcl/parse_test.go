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
	files, diags := parseFiles(names, srcs, nil, nil)
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
