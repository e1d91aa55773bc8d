package hcl

import (
	"bytes"
	"runtime"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/json"

	"github.com/toolhost/toolhost/internal/parallel"
)

// A native-syntax file of splitMin bytes or more is parsed in pieces of
// pieceMin bytes at least (but the last, see pieceBounds): two for each
// processor, or more when that would make pieces over pieceMax. HCL's lexer
// is slow (it measures columns in grapheme clusters): even
// examples/tools.hcl starts sooner parsed in pieces on two cores
// (BENCHMARKS.md, "Cold start on both cores"). Below splitMin the
// goroutines, and the thread the first of them needs early in a process,
// would cost about what they save.
//
// The lexer appends every token of what it is given to one slice, which Go
// grows by about a quarter at a time once it is large, so that a large
// piece allocates several times the slice's final size and copies it as
// often. Pieces of about pieceMax keep the slice small, and a large
// config's parse allocates less and takes less CPU (BENCHMARKS.md, "Large
// configs").
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
//
// A file or piece that prev (nil for none) parsed from the same bytes at
// the same place is taken from it rather than parsed again; what parses
// without a diagnostic is recorded in next (nil for none) for the load
// after (see reuse).
func parseFiles(names []string, srcs [][]byte, prev, next *reuse) ([]*hcl.File, []hcl.Diagnostics) {
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
	run := func(j int) {
		i, k := jobs[j].file, jobs[j].piece
		if k < 0 {
			files[i], diags[i] = parseWholeReusing(names[i], srcs[i], prev, next)
			return
		}
		pieces[i][k], failed[i][k] = parsePieceReusing(names[i], srcs[i], bounds[i][k], bounds[i][k+1], lines[i][k], prev, next)
	}
	if next == nil || next.early == nil {
		parallel.For(len(jobs), 1, run)
	} else {
		// The files parsed whole and the pieces that may hold a server
		// block first, then the others, decoded as they are parsed (see
		// earlyDecoder).
		var first, rest []job
		for _, jb := range jobs {
			if k := jb.piece; k < 0 || next.early.first(srcs[jb.file][bounds[jb.file][k]:bounds[jb.file][k+1]]) {
				first = append(first, jb)
			} else {
				rest = append(rest, jb)
			}
		}
		jobs = first
		parallel.For(len(jobs), 1, run)
		units := make([]*hcl.File, len(first))
		for n, jb := range first {
			if jb.piece < 0 {
				if !diags[jb.file].HasErrors() {
					units[n] = files[jb.file]
				}
			} else if !failed[jb.file][jb.piece] {
				units[n] = pieces[jb.file][jb.piece]
			}
		}
		next.early.ready(names, units)
		jobs = rest
		parallel.For(len(jobs), 1, run)
	}
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
	files, diags := parseFiles([]string{name}, [][]byte{src}, nil, nil)
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

// isJSON reports whether a config file is in HCL's JSON syntax, by its name.
func isJSON(name string) bool { return strings.HasSuffix(name, ".json") }

// parseWhole parses a whole file, in JSON or native syntax by its name.
func parseWhole(name string, src []byte) (*hcl.File, hcl.Diagnostics) {
	if isJSON(name) {
		// HCL's native parser skips a UTF-8 byte order mark, its JSON
		// parser does not ("Invalid start of value" at a character no
		// editor shows); Windows PowerShell 5 writes one with -Encoding
		// utf8. The text after it is parsed from byte 3 and column 1, as
		// the native parser counts, and the file keeps its own bytes.
		if rest, ok := bytes.CutPrefix(src, utf8BOM); ok {
			f, diags := json.ParseWithStartPos(rest, name, hcl.Pos{Line: 1, Column: 1, Byte: len(utf8BOM)})
			if f != nil {
				f.Bytes = src
			}
			return f, diags
		}
		return json.Parse(src, name)
	}
	return hclsyntax.ParseConfig(src, name, hcl.InitialPos)
}

// parseWholeReusing parses a whole file as parseWhole does, or takes it
// from prev when prev parsed the same bytes under the same name.
func parseWholeReusing(name string, src []byte, prev, next *reuse) (*hcl.File, hcl.Diagnostics) {
	if prev == nil && next == nil {
		return parseWhole(name, src)
	}
	key := wholeKey(name, src)
	if f := prev.piece(key); f != nil && next.takes(f) {
		next.keepPiece(key, f)
		cp := *f
		cp.Bytes = src
		return &cp, nil
	}
	f, diags := parseWhole(name, src)
	if f != nil && len(diags) == 0 && next != nil {
		next.keepPiece(key, f)
	}
	return f, diags
}

// parsePieceReusing parses a piece as parsePiece does, or takes it from
// prev when prev parsed the same bytes at the same place, or elsewhere
// when next takes moved pieces (see movedPiece).
func parsePieceReusing(name string, src []byte, start, end, line int, prev, next *reuse) (*hcl.File, bool) {
	if prev == nil && next == nil {
		return parsePiece(name, src, start, end, line)
	}
	key := pieceKeyAt(name, src, start, end, line)
	if f := prev.piece(key); f != nil && next.takes(f) {
		next.keepPiece(key, f)
		return f, false
	}
	if f := prev.movedPiece(key, next); f != nil {
		return f, false
	}
	f, failed := parsePiece(name, src, start, end, line)
	if !failed && next != nil {
		f = next.early.decodePiece(name, src, f)
		next.keepPiece(key, f)
	}
	return f, failed
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

// skipLine returns the index of the end of the line src[i] is on: its
// newline, or the end of src.
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
