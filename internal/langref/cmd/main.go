// Command cmd writes the language reference, docs/reference.md, and the
// language's description for editor tooling, docs/language.json, from the
// decoder's schemas and the texts beside them (see package langref). Run
// it as `go generate ./internal/langref`, or `go run ./internal/langref/cmd`
// from the repository's root.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolhost/toolhost/internal/langref"
)

func main() {
	root := flag.String("root", ".", "the repository's root directory")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run writes both files under root.
func run(root string) error {
	l, err := langref.Load()
	if err != nil {
		return err
	}
	js, err := l.JSON()
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{langref.ReferenceFile: l.Markdown(), langref.JSONFile: js} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
