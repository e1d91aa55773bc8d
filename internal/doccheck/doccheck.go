// Package doccheck checks that doc comments follow Go's conventions
// (go.dev/doc/comment): a declaration's doc comment starts with the name it
// documents, and each package has exactly one package comment, starting
// "Package NAME" (or naming the command for package main).
//
// A doc comment whose first word is another identifier of the same file is
// reported as sitting above the wrong declaration. Generated files (with the
// "Code generated ... DO NOT EDIT." marker) are skipped, and so are the
// directories testdata, vendor and node_modules and those whose name starts
// with "." or "_".
package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Problem is one doc comment that does not follow the conventions.
type Problem struct {
	Pos     token.Position
	Message string
}

// String gives the problem as file:line: message.
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s", p.Pos.Filename, p.Pos.Line, p.Message)
}

// Check parses every Go file in the tree under root, test files included,
// and returns the problems of their doc comments sorted by file and line.
// File names in the problems are relative to root, with slashes.
func Check(root string) ([]Problem, error) {
	fset := token.NewFileSet()
	dirs := map[string][]*ast.File{}
	names := map[*ast.File]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		names[f] = filepath.ToSlash(rel)
		dirs[filepath.Dir(path)] = append(dirs[filepath.Dir(path)], f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var problems []Problem
	report := func(f *ast.File, pos token.Pos, format string, args ...any) {
		p := fset.Position(pos)
		p.Filename = names[f]
		problems = append(problems, Problem{Pos: p, Message: fmt.Sprintf(format, args...)})
	}
	for dir, files := range dirs {
		for _, f := range files {
			checkDecls(f, func(pos token.Pos, format string, args ...any) { report(f, pos, format, args...) })
		}
		checkPackage(filepath.Base(dir), files, names, report)
	}
	sort.Slice(problems, func(i, j int) bool {
		a, b := problems[i].Pos, problems[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Line < b.Line
	})
	return problems, nil
}

// skipDir reports whether the walk leaves out a directory of that name.
func skipDir(name string) bool {
	switch name {
	case "testdata", "vendor", "node_modules":
		return true
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// reporter records a problem at a position of the file being checked.
type reporter func(pos token.Pos, format string, args ...any)

// checkDecls checks the doc comments of a file's top-level declarations and
// of the specs inside grouped declarations.
func checkDecls(f *ast.File, report reporter) {
	idents := fileIdents(f)
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			checkDoc(d.Doc, []string{d.Name.Name}, false, idents, report)
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			if !d.Lparen.IsValid() {
				// A single spec: go/parser gives its comment to the GenDecl.
				if len(d.Specs) == 1 {
					checkDoc(d.Doc, specNames(d.Specs[0]), d.Tok == token.TYPE, idents, report)
				}
				continue
			}
			// The doc comment of a group introduces the group; each spec
			// may have its own.
			for _, s := range d.Specs {
				checkDoc(specDoc(s), specNames(s), d.Tok == token.TYPE, idents, report)
			}
		}
	}
}

// fileIdents returns the names a file declares at top level, methods
// included.
func fileIdents(f *ast.File) map[string]bool {
	idents := map[string]bool{}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			idents[d.Name.Name] = true
		case *ast.GenDecl:
			for _, s := range d.Specs {
				for _, n := range specNames(s) {
					idents[n] = true
				}
			}
		}
	}
	delete(idents, "_")
	return idents
}

// specNames returns the names a type, const or var spec declares.
func specNames(s ast.Spec) []string {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return []string{s.Name.Name}
	case *ast.ValueSpec:
		var names []string
		for _, n := range s.Names {
			names = append(names, n.Name)
		}
		return names
	}
	return nil
}

// specDoc returns the doc comment of a spec inside a group.
func specDoc(s ast.Spec) *ast.CommentGroup {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return s.Doc
	case *ast.ValueSpec:
		return s.Doc
	}
	return nil
}

// checkDoc checks that a doc comment starts with one of names (for a type,
// after an optional "A", "An" or "The"). A comment that is only directives,
// or that starts "Deprecated:", is accepted.
func checkDoc(doc *ast.CommentGroup, names []string, isType bool, idents map[string]bool, report reporter) {
	if doc == nil {
		return
	}
	text := doc.Text()
	if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "Deprecated:") {
		return
	}
	first, rest := firstWord(text)
	if isType && !slices.Contains(names, first) && (first == "A" || first == "An" || first == "The") {
		first, _ = firstWord(rest)
	}
	if slices.Contains(names, first) || slices.Contains(names, "_") {
		return
	}
	if idents[first] {
		report(doc.Pos(), "doc comment names %s but sits above %s", first, strings.Join(names, ", "))
		return
	}
	report(doc.Pos(), "doc comment of %s should start with its name, not %q", strings.Join(names, ", "), first)
}

// firstWord splits text after its first word, an identifier; a word that does
// not start with a letter or underscore is returned up to the next space.
func firstWord(text string) (word, rest string) {
	text = strings.TrimLeftFunc(text, unicode.IsSpace)
	end := strings.IndexFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
	})
	if end == 0 {
		end = strings.IndexFunc(text, unicode.IsSpace)
	}
	if end < 0 {
		return text, ""
	}
	return text[:end], text[end:]
}

// checkPackage checks the package comments of the files of one directory:
// each package has exactly one, in a file that is not a test (in a test file
// only when the package has no other files, as an external test package or a
// directory of tests alone), and each starts "Package NAME", or for a command
// "Command", "Package main" or the command's name (the directory's, as in
// "Gofmt formats Go programs.").
func checkPackage(dir string, files []*ast.File, names map[*ast.File]string, report func(*ast.File, token.Pos, string, ...any)) {
	byPkg := map[string][]*ast.File{}
	for _, f := range files {
		byPkg[f.Name.Name] = append(byPkg[f.Name.Name], f)
	}
	for pkg, files := range byPkg {
		sort.Slice(files, func(i, j int) bool { return names[files[i]] < names[files[j]] })
		hasSource := false
		for _, f := range files {
			hasSource = hasSource || !isTest(names[f])
		}
		var docs []*ast.File
		for _, f := range files {
			if f.Doc == nil || strings.TrimSpace(f.Doc.Text()) == "" {
				continue
			}
			if hasSource && isTest(names[f]) {
				report(f, f.Doc.Pos(), "package comment of %s in a test file, where go doc does not show it", pkg)
				continue
			}
			docs = append(docs, f)
			if !packageDocOK(pkg, dir, f.Doc.Text()) {
				first, _ := firstWord(f.Doc.Text())
				report(f, f.Doc.Pos(), "package comment should start %q, not %q", "Package "+pkg, first)
			}
		}
		switch {
		case len(docs) == 0 && hasSource:
			f := files[0]
			for isTest(names[f]) {
				files = files[1:]
				f = files[0]
			}
			report(f, f.Package, "package %s has no package comment", pkg)
		case len(docs) > 1:
			for _, f := range docs[1:] {
				report(f, f.Doc.Pos(), "package %s has a second package comment, besides the one in %s", pkg, filepath.Base(names[docs[0]]))
			}
		}
	}
}

// isTest reports whether a file name is a test file's.
func isTest(name string) bool { return strings.HasSuffix(name, "_test.go") }

// packageDocOK reports whether a package comment starts as Go's conventions
// ask for package pkg in directory dir. An external test package (pkg_test)
// may be named without its suffix.
func packageDocOK(pkg, dir, text string) bool {
	first, rest := firstWord(text)
	second, _ := firstWord(rest)
	if first == "Package" && (second == pkg || second+"_test" == pkg) {
		return true
	}
	if pkg != "main" {
		return false
	}
	if first == "Command" && second != "" {
		return true
	}
	r, size := utf8.DecodeRuneInString(dir)
	return first == dir || first == string(unicode.ToUpper(r))+dir[size:]
}
