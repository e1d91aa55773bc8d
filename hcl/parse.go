package hcl

import (
	"bytes"
	"runtime"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/json"

	"github.com/toolhost/toolhost/internal/parallel"
)

// A native-syntax file of splitMin bytes or more is parsed in pieces of
// pieceMin bytes at least, two for each processor at most. HCL's lexer runs
// at a few MB/s (it measures columns in grapheme clusters): in a new
// process the 9 KB of examples/tools.hcl take 2 ms to parse, and a start of
// it took 0.4–0.5 ms less parsed in four pieces on two cores (BENCHMARKS.md,
// "Cold start on both cores"). Below that size the goroutines, and the
// thread the first of them needs early in a process, would cost about what
// they save.
const (
	splitMin = 4 << 10
	pieceMin = 2 << 10
)

// parseFile parses one config file with no cache, so that every load sees
// the file as it is now. A native-syntax file of splitMin bytes or more is
// split at top-level block boundaries and the pieces are parsed
// concurrently; each piece is parsed at its true start position, so ranges
// and diagnostics are the same as for a whole-file parse. Any doubt falls
// back to parsing the whole file.
func parseFile(name string, src []byte) (*hcl.File, hcl.Diagnostics) {
	if bytes.HasSuffix([]byte(name), []byte(".json")) {
		return json.Parse(src, name)
	}
	if pieces := min(2*runtime.GOMAXPROCS(0), len(src)/pieceMin); len(src) >= splitMin && pieces > 1 && parallel.Workers(pieces, 1) > 1 {
		if cuts := splitTopLevel(src, pieces); len(cuts) > 0 {
			if f, ok := parsePieces(name, src, cuts); ok {
				return f, nil
			}
		}
	}
	return hclsyntax.ParseConfig(src, name, hcl.InitialPos)
}

// parsePieces parses src cut at the given offsets (each the start of a
// line) concurrently and joins the pieces into one body. It reports false
// when a piece has any diagnostic: the caller then parses the whole file,
// so that diagnostics are exactly HCL's.
func parsePieces(name string, src []byte, cuts []int) (*hcl.File, bool) {
	bounds := append(append([]int{0}, cuts...), len(src))
	files := make([]*hcl.File, len(bounds)-1)
	failed := make([]bool, len(files))
	parallel.For(len(files), 1, func(i int) {
		start := hcl.Pos{Line: 1 + bytes.Count(src[:bounds[i]], []byte("\n")), Column: 1, Byte: bounds[i]}
		f, diags := hclsyntax.ParseConfig(src[bounds[i]:bounds[i+1]], name, start)
		files[i], failed[i] = f, len(diags) > 0
	})
	body := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}}
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
		r := f.Body.(*hclsyntax.Body).SrcRange
		if offset >= r.Start.Byte && offset <= r.End.Byte {
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
