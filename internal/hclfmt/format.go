package hclfmt

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Format returns src laid out in HCL's canonical style: each line indented
// two spaces for every bracket left open above it, one space or none
// between tokens by their kinds, and the equals signs of consecutive
// attribute lines, and the comments that end consecutive lines, in one
// column. Only the spaces between tokens change: the tokens, the line
// breaks and the text of strings and heredocs stay as they are. Source
// with syntax errors is laid out as far as its tokens allow.
func Format(src []byte) []byte {
	toks := lex(src)
	body := toks
	if n := len(toks); n > 0 && toks[n-1].typ == hclsyntax.TokenEOF {
		// Its spaces, trailing the last line, stay as they are.
		body = toks[:n-1]
	}
	lines := splitLines(body)
	indentLines(toks, lines)
	spaceLines(toks, lines)
	alignColumn(toks, lines, func(l line) (int, int, bool) { return l.start, l.assign, l.hasAssign() })
	alignColumn(toks, lines, func(l line) (int, int, bool) { return l.start, l.comment, l.hasComment() })
	var out bytes.Buffer
	out.Grow(len(src) + len(src)/8)
	for _, t := range toks {
		for range t.spaces {
			out.WriteByte(' ')
		}
		out.Write(t.text)
	}
	return out.Bytes()
}

// token is a token of the source and the spaces written before it.
type token struct {
	typ    hclsyntax.TokenType
	text   []byte
	spaces int
}

// lex returns the tokens of src, each with the bytes between it and the
// one before as its spaces (the lexer skips spaces and tabs only).
func lex(src []byte) []token {
	native, _ := hclsyntax.LexConfig(src, "", hcl.Pos{Line: 1, Column: 1})
	toks := make([]token, len(native))
	last := 0
	for i, t := range native {
		toks[i] = token{typ: t.Type, text: t.Bytes, spaces: t.Range.Start.Byte - last}
		last = t.Range.End.Byte
	}
	return toks
}

// line is a line of tokens, toks[start:end], in up to three cells: the
// lead, from start; an attribute's equals sign and its value, from
// assign; a comment that ends the line after other tokens, from comment.
// A cell that is absent starts where the next one does.
type line struct{ start, assign, comment, end int }

func (l line) hasAssign() bool  { return l.assign < l.comment }
func (l line) hasComment() bool { return l.comment < l.end }

// endsLine reports whether t ends a line: a newline, or a comment that
// takes its newline with it (# and //).
func endsLine(t token) bool {
	switch t.typ {
	case hclsyntax.TokenNewline:
		return true
	case hclsyntax.TokenComment:
		return len(t.text) > 0 && t.text[len(t.text)-1] == '\n'
	}
	return false
}

// splitLines cuts toks into lines and each line into its cells. An
// equals sign after the line's first token starts the assign cell when
// the brackets from it to the end of the line balance: otherwise the
// value goes on over the lines below, and the line is all lead.
func splitLines(toks []token) []line {
	var lines []line
	start := 0
	for i, t := range toks {
		if endsLine(t) {
			lines = append(lines, line{start, i + 1, i + 1, i + 1})
			start = i + 1
		}
	}
	lines = append(lines, line{start, len(toks), len(toks), len(toks)})
	for k := range lines {
		l := &lines[k]
		if l.end-l.start > 1 && toks[l.end-1].typ == hclsyntax.TokenComment {
			l.comment, l.assign = l.end-1, l.end-1
		}
		for i := l.start + 1; i < l.comment; i++ {
			if toks[i].typ != hclsyntax.TokenEqual {
				continue
			}
			if bracketSum(toks[i:l.comment]) == 0 {
				l.assign = i
			}
			break
		}
	}
	return lines
}

// bracketChange is what t does to the depth of brackets: +1 for an
// opening bracket, brace, parenthesis or template sequence, -1 for a
// closing one.
func bracketChange(t token) int {
	switch t.typ {
	case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen, hclsyntax.TokenTemplateControl, hclsyntax.TokenTemplateInterp:
		return 1
	case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenTemplateSeqEnd:
		return -1
	}
	return 0
}

func bracketSum(toks []token) int {
	n := 0
	for _, t := range toks {
		n += bracketChange(t)
	}
	return n
}

// indentLines sets the spaces before each line's first token: two for
// each level open. A line that opens brackets opens one level, however
// many; a line that closes them closes the levels they opened, and is
// indented as the level it returns to.
func indentLines(toks []token, lines []line) {
	var open []int // the brackets each open level holds
	for _, l := range lines {
		if l.start == l.end {
			continue
		}
		if toks[l.start].typ == hclsyntax.TokenNewline {
			toks[l.start].spaces = 0
			continue
		}
		net := 0
		for i := l.start; i < l.assign; i++ {
			net += bracketChange(toks[i])
			if toks[i].typ == hclsyntax.TokenOHeredoc {
				break
			}
		}
		net += bracketSum(toks[l.assign:l.comment])
		if net > 0 {
			toks[l.start].spaces = 2 * len(open)
			open = append(open, net)
			continue
		}
		for closed := -net; closed > 0 && len(open) > 0; {
			top := &open[len(open)-1]
			if closed < *top {
				*top -= closed
				break
			}
			closed -= *top
			open = open[:len(open)-1]
		}
		toks[l.start].spaces = 2 * len(open)
	}
}

// spaceLines sets the spaces between the tokens of each line's lead, and
// of its assign cell, which starts one space after the lead.
func spaceLines(toks []token, lines []line) {
	for _, l := range lines {
		spaceCell(toks[l.start:l.assign])
		if l.hasAssign() {
			toks[l.assign].spaces = 1
			spaceCell(toks[l.assign:l.comment])
		}
	}
}

// spaceCell sets the spaces before every token of cell but the first.
func spaceCell(cell []token) {
	for i := 0; i+1 < len(cell); i++ {
		before := token{typ: hclsyntax.TokenNil}
		if i > 0 {
			before = cell[i-1]
		}
		cell[i+1].spaces = 0
		if spaced(before, cell[i], cell[i+1]) {
			cell[i+1].spaces = 1
		}
	}
}

// alignColumn lines up a cell of consecutive lines that have it (cell
// returns where the text before it starts, where it starts, and whether
// the line has it): it starts one space after the longest text before it
// among them.
func alignColumn(toks []token, lines []line, cell func(line) (from, at int, has bool)) {
	for k := 0; k < len(lines); {
		if _, _, has := cell(lines[k]); !has {
			k++
			continue
		}
		end, widest := k, 0
		for ; end < len(lines); end++ {
			from, at, has := cell(lines[end])
			if !has {
				break
			}
			widest = max(widest, columns(toks[from:at]))
		}
		for ; k < end; k++ {
			from, at, _ := cell(lines[k])
			toks[at].spaces = widest - columns(toks[from:at]) + 1
		}
	}
}

// columns is how many columns toks take, spaces included: a character as
// a reader sees it (a grapheme cluster) takes one.
func columns(toks []token) int {
	n := 0
	for _, t := range toks {
		n += t.spaces + graphemes(t.text)
	}
	return n
}

// graphemes counts the grapheme clusters of b (see scanClusters).
func graphemes(b []byte) int {
	n := 0
	for len(b) > 0 {
		adv, _, err := scanClusters(b, true)
		if err != nil || adv <= 0 {
			return n + len(b) // not expected: a byte a column
		}
		b = b[adv:]
		n++
	}
	return n
}
