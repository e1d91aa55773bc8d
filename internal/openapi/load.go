package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel"
	lowbase "github.com/pb33f/libopenapi/datamodel/low/base"
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
func Parse(name string, data []byte) (*Document, error) {
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
		var ye *yaml.LoadError
		if errors.As(err, &ye) {
			return nil, fmt.Errorf("%s: invalid YAML: %s. Fix the document there (a YAML linter shows the same place)", yamlPlace(name, ye), yamlMessage(ye))
		}
		return nil, fmt.Errorf("%s is neither JSON nor YAML: %v. Give an OpenAPI document (openapi: 3.x) or a Swagger 2.0 one (swagger: \"2.0\")", name, err)
	}
	switch {
	case head.Swagger != "":
		if !strings.HasPrefix(head.Swagger, "2.") {
			return nil, fmt.Errorf("%s: swagger is %q; toolhost import reads Swagger 2.0 and OpenAPI 3.0 and 3.1", name, head.Swagger)
		}
		return parse(name, data, fromV2)
	case strings.HasPrefix(head.OpenAPI, "3."):
		return parse(name, data, fromV3)
	case head.OpenAPI != "":
		return nil, fmt.Errorf("%s: openapi is %q; toolhost import reads OpenAPI 3.0 and 3.1, and Swagger 2.0", name, head.OpenAPI)
	}
	return nil, fmt.Errorf("%s has neither an openapi nor a swagger field at its top, so it is not an OpenAPI document; give one that starts with openapi: 3.x (or swagger: \"2.0\")", name)
}

// parse reads data with libopenapi, which follows no $ref outside the
// document (it is given no file system and no remote fetches), and has
// build make the Document of its model. A $ref to another file or URL
// is refused before anything is resolved. It calls libopenapi's
// datamodel packages as its root package does, without linking that
// package, which links the comparison of documents (what-changed),
// overlays and Arazzo, and their init.
func parse(name string, data []byte, build func(*datamodel.SpecInfo, *datamodel.DocumentConfiguration) (*Document, error)) (*Document, error) {
	log := &errorLog{}
	config := &datamodel.DocumentConfiguration{
		Logger: slog.New(log),
		// A cycle of schemas is fine: Convert follows it to
		// maxSchemaDepth and no further.
		SkipCircularReferenceCheck: true,
		// The keywords beside a $ref of 3.1 are applied by
		// schemas.siblings, as kin-openapi applied them.
		TransformSiblingRefs: false,
	}
	info, err := datamodel.ExtractSpecInfoWithConfig(data, config)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	root := info.RootNode
	if ref, line := externalRef(root); ref != "" {
		return nil, fmt.Errorf("%s:%d: the $ref %q names another file or a URL. toolhost import reads one whole document and follows no $ref to another file or URL; bundle the document first (as redocly bundle or swagger-cli bundle do)", name, line, ref)
	}
	out, err := build(info, config)
	lowbase.SchemaQuickHashMap.Clear() // libopenapi's cache of this document's schemas, as its root package clears it
	if err != nil {
		return nil, buildError(name, data, root, err)
	}
	if msg := log.first(); msg != "" {
		return nil, shapeError(name, root, msg)
	}
	return out, nil
}

// errorLog is the slog.Handler libopenapi logs to: it keeps the errors,
// each a part of the document it could not read (and left out), which
// Parse refuses rather than import less than the document says.
type errorLog struct {
	mu   sync.Mutex
	msgs []string
}

// Enabled reports whether level is an error's.
func (l *errorLog) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelError }

// Handle keeps an error's message.
func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}

// WithAttrs is l: the attributes are not kept.
func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup is l.
func (l *errorLog) WithGroup(string) slog.Handler { return l }

// first is the first error that names a place in the document, else the
// first error, "" for none.
func (l *errorLog) first() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.msgs {
		if lineColumn().MatchString(m) {
			return m
		}
	}
	if len(l.msgs) > 0 {
		return l.msgs[0]
	}
	return ""
}

// lineColumn finds the place libopenapi's messages name.
// It is compiled at its first use, not at every start of toolhost.
var lineColumn = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`,? (?:at )?line (\d+), col(?:umn)? (\d+)`)
})

// shapeError words an error of libopenapi's model build (a part of the
// document of the wrong shape, such as a map where a list belongs) with
// its line and the JSON pointer of the place, and the fix.
func shapeError(name string, root *yaml.Node, msg string) error {
	m := lineColumn().FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("%s: %s. Fix the document there", name, msg)
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	what := strings.TrimSpace(strings.Replace(msg, m[0], "", 1))
	where := ""
	if p, ok := pointerAt(root, line, col, "#"); ok {
		where = " (" + p + ")"
	}
	return fmt.Errorf("%s: line %d, column %d%s: %s. Fix the document there: it is not of the shape OpenAPI gives that place", name, line, col, where, what)
}

// buildError words an error of libopenapi's model build: a $ref that
// names nothing gets the line where it is written and the fix; any
// other keeps libopenapi's text.
func buildError(name string, data []byte, root *yaml.Node, err error) error {
	if m := badRef().FindStringSubmatch(err.Error()); m != nil {
		at := name
		if i := bytes.Index(data, []byte(m[1])); i >= 0 {
			line, _ := lineCol(data, int64(i))
			at = fmt.Sprintf("%s:%d", name, line)
		}
		return fmt.Errorf("%s: the $ref %q names nothing in the document. Correct the $ref, or add what it names", at, m[1])
	}
	if lineColumn().MatchString(err.Error()) {
		return shapeError(name, root, err.Error())
	}
	return fmt.Errorf("%s: %v", name, err)
}

// badRef finds the reference in libopenapi's error for a $ref that
// resolves to nothing.
var badRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("component `(#[^`]*)` does not exist")
})

// externalRef is the first $ref of the document that does not start
// with #, and its line, "" when there is none.
func externalRef(n *yaml.Node) (string, int) {
	if n == nil {
		return "", 0
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode && !strings.HasPrefix(v.Value, "#") {
				return v.Value, v.Line
			}
		}
	}
	for _, c := range n.Content {
		if ref, line := externalRef(c); ref != "" {
			return ref, line
		}
	}
	return "", 0
}

// pointerAt is the JSON pointer of the node (or mapping key) at line
// and col under n, whose pointer is at.
func pointerAt(n *yaml.Node, line, col int, at string) (string, bool) {
	if n == nil {
		return "", false
	}
	if n.Line == line && n.Column == col && n.Kind != yaml.DocumentNode {
		return at, true
	}
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := at + "/" + esc.Replace(k.Value)
			if k.Line == line && k.Column == col {
				return p, true
			}
			if q, ok := pointerAt(v, line, col, p); ok {
				return q, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if q, ok := pointerAt(c, line, col, at+"/"+strconv.Itoa(i)); ok {
				return q, true
			}
		}
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if q, ok := pointerAt(c, line, col, at); ok {
				return q, true
			}
		}
	}
	return "", false
}

// yamlPlace is name with the line and column of a YAML error, as
// name:line:col (or name:line, or name alone, as far as they are known).
func yamlPlace(name string, e *yaml.LoadError) string {
	switch {
	case e.Mark.Line > 0 && e.Mark.Column > 0:
		return fmt.Sprintf("%s:%d:%d", name, e.Mark.Line, e.Mark.Column)
	case e.Mark.Line > 0:
		return fmt.Sprintf("%s:%d", name, e.Mark.Line)
	}
	return name
}

// yamlMessage is what a YAML error says, without the library's prefix of
// its stage and position: the message, and the construct it was reading
// with where that starts.
func yamlMessage(e *yaml.LoadError) string {
	msg := e.Message
	if e.ContextMsg != "" {
		msg += " (" + e.ContextMsg
		if e.ContextMark.Line > 0 && e.ContextMark.Line != e.Mark.Line {
			msg += fmt.Sprintf(" from line %d", e.ContextMark.Line)
		}
		msg += ")"
	}
	return msg
}

// unmarshal decodes JSON, or else YAML, into v.
func unmarshal(data []byte, v any) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return json.Unmarshal(data, v)
	}
	return yaml.Unmarshal(data, v)
}

// lineCol is the line and column (from 1) of a byte offset of data.
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
