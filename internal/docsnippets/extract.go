package docsnippets

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Block is one fenced code block of a markdown file.
type Block struct {
	File string // the markdown file's name, as given to Extract
	Line int    // the line of the opening fence (1-based)
	Lang string // the first word of the info string, lower case
	Text string // the content, without the fences and the fence's indent

	Fragment bool   // <!-- snippet: fragment -->
	Skip     string // the reason of <!-- snippet: skip REASON -->
	Dir      string // the PATH of <!-- snippet: dir PATH -->
	Fails    bool   // <!-- snippet: fails -->
}

// Problem is one block, or marker, that does not check.
type Problem struct {
	File    string
	Line    int
	Message string
}

// String gives the problem as file:line: message.
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
}

// markerPrefix starts every marker comment.
const markerPrefix = "<!-- snippet:"

// Extract returns the fenced code blocks of the markdown src, with the
// markers of the comment lines right before each, and the problems of
// markers that are unknown, incomplete or not before a fence, and of a
// fence left open. The markdown is parsed with goldmark, as CommonMark
// reads it: fences in list items and block quotes count, a marker inside
// a code block does not.
func Extract(name string, src []byte) ([]Block, []Problem) {
	var (
		blocks   []Block
		problems []Problem
		markers  = map[int]marker{} // by line
	)
	lineOf := func(offset int) int { return bytes.Count(src[:offset], []byte("\n")) + 1 }
	lines := bytes.Split(src, []byte("\n"))
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	var fences []*ast.FencedCodeBlock
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			fences = append(fences, n)
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			segs := n.Lines()
			for i := 0; i < segs.Len(); i++ {
				seg := segs.At(i)
				line := strings.TrimSpace(string(seg.Value(src)))
				if !strings.HasPrefix(line, markerPrefix) {
					continue
				}
				m, p := parseMarker(line)
				if p != "" {
					problems = append(problems, Problem{name, lineOf(seg.Start), p})
					continue
				}
				m.line = lineOf(seg.Start)
				markers[m.line] = m
			}
		}
		return ast.WalkContinue, nil
	})
	for _, f := range fences {
		line := lineOf(f.Pos())
		b := Block{File: name, Line: line}
		if f.Info != nil {
			b.Lang = strings.ToLower(firstWord(string(f.Info.Segment.Value(src))))
		}
		var body strings.Builder
		segs := f.Lines()
		last := line
		for i := 0; i < segs.Len(); i++ {
			seg := segs.At(i)
			body.WriteString(strings.Repeat(" ", seg.Padding))
			body.Write(seg.Value(src))
			last = lineOf(seg.Start)
		}
		b.Text = body.String()
		for l := line - 1; ; l-- {
			m, ok := markers[l]
			if !ok {
				break
			}
			problems = append(problems, m.apply(&b)...)
			delete(markers, l)
		}
		// CommonMark closes a fence left open at the end of its container;
		// a doc that does so has lost its closing line.
		if last >= len(lines) || fenceOf(strings.TrimLeft(string(lines[last]), " \t")) == "" {
			problems = append(problems, Problem{name, line, "this code fence is never closed: add a closing ``` line after the block."})
		}
		blocks = append(blocks, b)
	}
	for _, m := range markers {
		problems = append(problems, Problem{name, m.line, "this snippet marker is not on the line right before a code fence (```), so it marks nothing: move it there, or remove it."})
	}
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].Line < problems[j].Line })
	return blocks, problems
}

// fenceOf returns the run of three or more backticks or tildes that opens
// a fence at the start of s, or "".
func fenceOf(s string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(s) && s[n] == c {
			n++
		}
		if n >= 3 {
			return s[:n]
		}
	}
	return ""
}

// firstWord is the info string's first word (the block's language).
func firstWord(info string) string {
	f := strings.Fields(info)
	if len(f) == 0 {
		return ""
	}
	return strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(f[0], "{"), "}"), ".")
}

// marker is one parsed <!-- snippet: KIND ARG --> comment.
type marker struct {
	kind, arg string
	line      int
}

// parseMarker parses a marker comment; the string is a problem, or "".
func parseMarker(s string) (marker, string) {
	rest, ok := strings.CutSuffix(strings.TrimSpace(s), "-->")
	if !ok {
		return marker{}, "this snippet marker does not end with --> on its line: write it on one line, as <!-- snippet: fragment -->."
	}
	rest = strings.TrimSpace(strings.TrimPrefix(rest, markerPrefix))
	kind, arg, _ := strings.Cut(rest, " ")
	arg = strings.TrimSpace(arg)
	switch kind {
	case "fragment", "fails":
		if arg != "" {
			return marker{}, fmt.Sprintf("the snippet marker %q takes no argument, but %q follows it: remove it.", kind, arg)
		}
	case "skip":
		if strings.Trim(arg, "()") == "" {
			return marker{}, "a skip marker needs its reason, as <!-- snippet: skip (needs a live database) -->: say why the block is not checked."
		}
	case "dir":
		if arg == "" {
			return marker{}, "a dir marker needs the directory, relative to the repository root, as <!-- snippet: dir examples -->."
		}
	default:
		return marker{}, fmt.Sprintf("unknown snippet marker %q: the markers are fragment, skip REASON, dir PATH and fails (see the docsnippets package doc).", kind)
	}
	return marker{kind: kind, arg: arg}, ""
}

// apply sets the marker on the block it is before, and returns a problem
// when the marker does not fit the block's language.
func (m marker) apply(b *Block) []Problem {
	bad := func(what string) []Problem {
		return []Problem{{b.File, m.line, fmt.Sprintf("the snippet marker %q is for %s blocks, but the block after it is %q: remove the marker, or fix the block's info string.", m.kind, what, b.Lang)}}
	}
	switch m.kind {
	case "fragment":
		if kindOf(b.Lang) != kindHCL && kindOf(b.Lang) != kindJSON {
			return bad("hcl or json")
		}
		b.Fragment = true
	case "skip":
		b.Skip = m.arg
	case "dir":
		if kindOf(b.Lang) != kindHCL {
			return bad("hcl")
		}
		b.Dir = m.arg
	case "fails":
		if kindOf(b.Lang) != kindShell {
			return bad("sh or console")
		}
		b.Fails = true
	}
	return nil
}

// kind is how a block is checked, from its language.
type kind int

const (
	kindNone kind = iota
	kindHCL
	kindShell
	kindJSON
)

// kindOf tells how a block of language lang is checked.
func kindOf(lang string) kind {
	switch lang {
	case "hcl":
		return kindHCL
	case "sh", "shell", "bash", "console":
		return kindShell
	case "json", "jsonc":
		return kindJSON
	}
	return kindNone
}
