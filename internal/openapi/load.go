package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// MaxSpecSize is the largest document Parse reads: GitHub's REST API,
// among the largest public ones, is 13 MB.
const MaxSpecSize = 64 << 20

// ErrTooLarge is the error of a document over MaxSpecSize.
var ErrTooLarge = fmt.Errorf("the document is larger than %d MiB, the most toolhost import reads; split it, or keep only the paths you need", MaxSpecSize>>20)

// Parse reads an OpenAPI 3.0 or 3.1, or Swagger 2.0, document in JSON or
// YAML and resolves its $refs. name is where it came from ("-" for
// standard input), for messages. A $ref to another file or a URL is
// refused: the document must be whole (bundle it first).
func Parse(name string, data []byte) (*openapi3.T, error) {
	if len(data) > MaxSpecSize {
		return nil, fmt.Errorf("%s: %w", name, ErrTooLarge)
	}
	var head struct {
		Swagger string `json:"swagger" yaml:"swagger"`
		OpenAPI string `json:"openapi" yaml:"openapi"`
	}
	if err := unmarshal(data, &head); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			line, col := lineCol(data, syn.Offset-1) // Offset is just past the bad byte
			return nil, fmt.Errorf("%s:%d:%d: invalid JSON: %v. Fix the document there (a JSON linter shows the same place)", name, line, col, err)
		}
		return nil, fmt.Errorf("%s is neither JSON nor YAML: %v. Give an OpenAPI document (openapi: 3.x) or a Swagger 2.0 one (swagger: \"2.0\")", name, err)
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	loader.IncludeOrigin = true
	switch {
	case head.Swagger != "":
		if !strings.HasPrefix(head.Swagger, "2.") {
			return nil, fmt.Errorf("%s: swagger is %q; toolhost import reads Swagger 2.0 and OpenAPI 3.0 and 3.1", name, head.Swagger)
		}
		var doc2 openapi2.T
		if err := openapi2.UnmarshalFromData(data, &doc2); err != nil {
			return nil, fmt.Errorf("%s is not a valid Swagger 2.0 document: %v", name, err)
		}
		doc, err := openapi2conv.ToV3(&doc2)
		if err != nil {
			return nil, fmt.Errorf("%s: converting Swagger 2.0 to OpenAPI 3: %v", name, err)
		}
		if err := loader.ResolveRefsIn(doc, nil); err != nil {
			return nil, refError(name, data, err)
		}
		return doc, nil
	case strings.HasPrefix(head.OpenAPI, "3."):
		doc, err := loader.LoadFromData(data)
		if err != nil {
			return nil, refError(name, data, err)
		}
		return doc, nil
	case head.OpenAPI != "":
		return nil, fmt.Errorf("%s: openapi is %q; toolhost import reads OpenAPI 3.0 and 3.1, and Swagger 2.0", name, head.OpenAPI)
	}
	return nil, fmt.Errorf("%s has neither an openapi nor a swagger field at its top, so it is not an OpenAPI document; give one that starts with openapi: 3.x (or swagger: \"2.0\")", name)
}

// unmarshal decodes JSON, or else YAML, into v.
func unmarshal(data []byte, v any) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return json.Unmarshal(data, v)
	}
	return yaml.Unmarshal(data, v)
}

// refError words a loader error for the user: a $ref to another document
// gets the fix, and one that names nothing the line where it is written;
// any other keeps kin-openapi's text, which names the place (a JSON
// pointer, a line).
func refError(name string, data []byte, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "external reference") || strings.Contains(msg, "IsExternalRefsAllowed") {
		return fmt.Errorf("%s: %v. toolhost import reads one whole document and follows no $ref to another file or URL; bundle the document first (as redocly bundle or swagger-cli bundle do)", name, err)
	}
	if m := badRef.FindStringSubmatch(msg); m != nil {
		at := name
		if i := bytes.Index(data, []byte(m[1])); i >= 0 {
			line, _ := lineCol(data, int64(i))
			at = fmt.Sprintf("%s:%d", name, line)
		}
		return fmt.Errorf("%s: the $ref %q names nothing in the document (%v). Correct the $ref, or add what it names", at, m[1], err)
	}
	return fmt.Errorf("%s: %v", name, err)
}

// badRef finds the reference in kin-openapi's error for a $ref that
// resolves to nothing.
var badRef = regexp.MustCompile(`in URI: "(#[^"]*)"`)

// lineCol is the line and column (from 1) of a byte offset of data.
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
