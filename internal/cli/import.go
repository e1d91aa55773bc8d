package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolhost/toolhost/internal/openapi"
)

// runImport runs 'toolhost import openapi SPEC': the tools for an OpenAPI
// document's operations, as HCL on stdout or in -o FILE. A large
// document without --tag or --operation is refused (exit 2) after its
// tags and their operation counts, on stderr, so that the user picks.
func runImport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const synopsis = "import openapi SPEC [--tag T ...] [--operation ID ...] [--base-url URL] [-o FILE]"
	fs := newFlags("import", synopsis, stderr)
	var tags, ops multiFlag
	fs.Var(&tags, "tag", "import the operations with this tag (repeatable)")
	fs.Var(&ops, "operation", "import the operation with this operationId (repeatable)")
	baseURL := fs.String("base-url", "", "the API's base URL, in place of the document's first server")
	outFile := fs.String("o", "", "write the HCL to `FILE` (replaced if it exists) instead of stdout")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) != 2 || pos[0] != "openapi" {
		fmt.Fprintf(stderr, "Usage: toolhost %s\ntoolhost import reads one OpenAPI document (openapi), a file or - for standard input, as in: toolhost import openapi petstore.yaml --tag pets\n", synopsis)
		return ExitUsage
	}
	spec := pos[1]
	data, err := readSpec(spec, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost import: %v\n", err)
		return ExitFailure
	}
	name := spec
	if spec == "-" {
		name = "standard input"
	}
	doc, err := openapi.Parse(name, data)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost import: %v\n", err)
		return ExitFailure
	}
	out, err := openapi.Convert(doc, openapi.Options{Source: name, Tags: tags, Operations: ops, BaseURL: *baseURL})
	var sel *openapi.SelectionError
	switch {
	case errors.As(err, &sel):
		fmt.Fprintf(stderr, "Tags of %s, with their operation counts:\n%s\ntoolhost import: %v.\n", name, sel.TagList(), err)
		return ExitUsage
	case errors.Is(err, openapi.ErrNoOperations):
		fmt.Fprintf(stderr, "toolhost import: %v.\n", err)
		return ExitFailure
	case err != nil:
		fmt.Fprintf(stderr, "toolhost import: %v.\n", err)
		return ExitUsage
	}
	if *outFile == "" || *outFile == "-" {
		_, err = stdout.Write(out)
	} else {
		err = writeReplacing(*outFile, out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolhost import: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// readSpec reads the document at name ("-": stdin), refusing one larger
// than openapi.MaxSpecSize without reading it all.
func readSpec(name string, stdin io.Reader) ([]byte, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("cannot read the document: %v", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, openapi.MaxSpecSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", name, err)
	}
	if len(data) > openapi.MaxSpecSize {
		return nil, fmt.Errorf("%s: %w", name, openapi.ErrTooLarge)
	}
	return data, nil
}

// writeReplacing writes data to name through a temporary file in the
// same directory renamed into place, so that no half-written file is
// ever left at name.
func writeReplacing(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".import-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", name, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), name)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %v", name, werr)
	}
	return nil
}
