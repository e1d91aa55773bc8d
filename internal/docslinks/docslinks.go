// Package docslinks checks the relative links of Markdown files: that each
// names a file or directory that exists and, when it has a fragment, that
// the fragment is the anchor of a heading in the file it names, as GitHub
// makes anchors from headings.
//
// Links with a scheme (https:, mailto:) are not followed. Markdown is parsed
// with goldmark and its GitHub extensions, so links in code blocks and code
// spans are not links, as on GitHub.
package docslinks

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Problem is one link that leads nowhere.
type Problem struct {
	File   string // the Markdown file, relative to the root, with slashes
	Line   int    // 1-based line of the link's text
	Target string // the link as written
	Reason string
}

// String gives the problem as file:line: target: reason.
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Target, p.Reason)
}

// link is one link of a file, with the line it is on.
type link struct {
	dest string
	line int
}

// page is what the check needs of one Markdown file: its links and the
// anchors of its headings.
type page struct {
	links   []link
	anchors map[string]bool
}

// Check reads the Markdown files (paths relative to root, with slashes) and
// returns the problems of their relative links, sorted by file and line. A
// link may lead to any file under root; anchors are checked in Markdown
// files only.
func Check(root string, files []string) ([]Problem, error) {
	pages := map[string]*page{}
	load := func(name string) (*page, error) {
		if p, ok := pages[name]; ok {
			return p, nil
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		p := parse(src)
		pages[name] = p
		return p, nil
	}
	var problems []Problem
	for _, name := range files {
		p, err := load(name)
		if err != nil {
			return nil, err
		}
		for _, l := range p.links {
			if reason := resolve(root, name, l.dest, load); reason != "" {
				problems = append(problems, Problem{File: name, Line: l.line, Target: l.dest, Reason: reason})
			}
		}
	}
	sort.Slice(problems, func(i, j int) bool {
		if problems[i].File != problems[j].File {
			return problems[i].File < problems[j].File
		}
		return problems[i].Line < problems[j].Line
	})
	return problems, nil
}

// resolve checks one link of the file from and returns why it leads
// nowhere, or "" when it leads somewhere.
func resolve(root, from, dest string, load func(string) (*page, error)) string {
	u, err := url.Parse(dest)
	if err != nil {
		return "not a valid URL: " + err.Error()
	}
	if u.Scheme != "" || u.Host != "" {
		return ""
	}
	target := from
	if u.Path != "" {
		if strings.HasPrefix(u.Path, "/") {
			return "a path from the site's root; write it relative to " + from
		}
		target = path.Clean(path.Join(path.Dir(from), u.Path))
		if target == ".." || strings.HasPrefix(target, "../") {
			return "leads out of the repository"
		}
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(target)))
		if err != nil {
			return "no file or directory " + target
		}
		if info.IsDir() {
			if u.Fragment != "" {
				return "a fragment on a directory"
			}
			return ""
		}
	}
	if u.Fragment == "" || !strings.HasSuffix(target, ".md") {
		return ""
	}
	p, err := load(target)
	if err != nil {
		return err.Error()
	}
	if !p.anchors[u.Fragment] {
		return fmt.Sprintf("no heading of %s has the anchor #%s", target, u.Fragment)
	}
	return ""
}

// parse finds the links and the heading anchors of one Markdown file.
func parse(src []byte) *page {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := md.Parser().Parse(text.NewReader(src))
	p := &page{anchors: map[string]bool{}}
	seen := map[string]int{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			slug := Slug(plain(n, src))
			if k := seen[slug]; k > 0 {
				p.anchors[fmt.Sprintf("%s-%d", slug, k)] = true
			} else {
				p.anchors[slug] = true
			}
			seen[slug]++
		case *ast.Link:
			p.links = append(p.links, link{dest: string(n.Destination), line: lineOf(n, src)})
		case *ast.Image:
			p.links = append(p.links, link{dest: string(n.Destination), line: lineOf(n, src)})
		}
		return ast.WalkContinue, nil
	})
	return p
}

// plain is the text of a heading as GitHub reads it for its anchor: the
// text of its inline parts, code spans without their backticks.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// Slug is the anchor GitHub gives a heading of this text: lower case, each
// space a hyphen, and every character but letters, digits, hyphens and
// underscores left out. A second heading of the same text gets "-1", a
// third "-2", and so on; Check adds those.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lineOf is the 1-based line of an inline node's first text, found through
// the block that holds it.
func lineOf(n ast.Node, src []byte) int {
	for c := ast.Node(n); c != nil; c = c.FirstChild() {
		if t, ok := c.(*ast.Text); ok {
			return 1 + bytes.Count(src[:t.Segment.Start], []byte("\n"))
		}
	}
	for b := n.Parent(); b != nil; b = b.Parent() {
		if b.Type() == ast.TypeBlock && b.Lines().Len() > 0 {
			return 1 + bytes.Count(src[:b.Lines().At(0).Start], []byte("\n"))
		}
	}
	return 0
}
