package host

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's AddTool decodes a schema given as JSON two or three times,
// each time through a new decoder with a 32 KB buffer, to check its type
// and its x-mcp-header annotations: at a reload of every tool of a large
// config that was most of what the reload allocated (BENCHMARKS.md,
// "Every tool edited"). So the SDK is given, for each tool whose input
// schema has no x-mcp-header annotation, a stand-in: the tool's name and
// stubInput, registered once, when the name first appears, and kept
// while the tool changes, since tools/list shows the declaration of the
// registry in service in its place (declaredTools) and calls find their
// tool there too. A tool with the annotation is registered as declared,
// at every change: the SDK checks the headers of its calls against it.
// Stand-ins are never changed after they are registered, so a session
// listing tools while a reload registers them reads nothing being
// written.

// stubInput is the input schema of every stand-in. As a *jsonschema.Schema
// the SDK checks its type without decoding it. To find x-mcp-header
// annotations, in AddTool and at every call over streamable HTTP, the SDK
// encodes the schema and decodes it again, through a new decoder with a
// 32 KB buffer; when the encoding fails it takes the schema to have no
// annotation, as a stand-in has none. So stubInput cannot be encoded:
// jsonschema refuses a schema with both $defs and definitions before it
// encodes anything, which also spares a start building the encoder of
// its Schema struct. Nothing else encodes a stand-in: declaredTools puts
// the tool's declaration in its place in every tools/list result, and a
// stand-in that reached a client would make its tools/list fail, not
// show a wrong schema.
var stubInput = &jsonschema.Schema{Type: "object", Defs: map[string]*jsonschema.Schema{}, Definitions: map[string]*jsonschema.Schema{}}

// headerAnnotation is the schema keyword the SDK checks in AddTool beyond
// the type (x-mcp-header, on properties).
var headerAnnotation = []byte(`"x-mcp-header"`)

// standIn is the stand-in the SDK holds for the tool named name.
func standIn(name string) *mcp.Tool {
	return &mcp.Tool{Name: name, InputSchema: stubInput}
}

// isStandIn reports whether t is a stand-in.
func isStandIn(t *mcp.Tool) bool {
	in, ok := t.InputSchema.(*jsonschema.Schema)
	return ok && in == stubInput
}

// ownDeclaration reports whether the SDK must hold t itself: its input
// schema has an x-mcp-header annotation (or is not JSON, which the
// compiler does not make).
func ownDeclaration(t *mcp.Tool) bool {
	in, ok := t.InputSchema.(json.RawMessage)
	return !ok || bytes.Contains(in, headerAnnotation)
}

// registrations returns what to register with the SDK for tools, new or
// changed: each tool that needs its own declaration, and a stand-in for
// each other whose name has none yet. When that is nothing, it is one
// stand-in again, so that the SDK tells clients that the list changed.
// It is called under applyMu.
func (s *Server) registrations(tools []*mcp.Tool) []*mcp.Tool {
	if s.standIns == nil {
		s.standIns = map[string]bool{}
	}
	var out []*mcp.Tool
	for _, t := range tools {
		switch {
		case ownDeclaration(t):
			delete(s.standIns, t.Name)
			out = append(out, t)
		case !s.standIns[t.Name]:
			s.standIns[t.Name] = true
			out = append(out, standIn(t.Name))
		}
	}
	if len(out) == 0 && len(tools) > 0 {
		out = append(out, standIn(tools[0].Name))
	}
	return out
}

// forgetStandIns notes that the SDK no longer holds the tools named names (under
// applyMu).
func (s *Server) forgetStandIns(names []string) {
	for _, n := range names {
		delete(s.standIns, n)
	}
}

// declaredTools puts, in a tools/list result, the declaration of r (the
// registry in service) in place of each stand-in. A stand-in whose tool r
// does not have (a reload removed it, and the SDK has not yet) is left
// out, as calls to it find no tool. A result without stand-ins is
// returned as it is.
func (r *Registry) declaredTools(res mcp.Result) mcp.Result {
	list, ok := res.(*mcp.ListToolsResult)
	if !ok || list == nil || r == nil {
		return res
	}
	first := -1
	for i, t := range list.Tools {
		if isStandIn(t) {
			first = i
			break
		}
	}
	if first < 0 {
		return res
	}
	decls := r.declsByName()
	c := *list
	c.Tools = append(make([]*mcp.Tool, 0, len(list.Tools)), list.Tools[:first]...)
	for _, t := range list.Tools[first:] {
		if !isStandIn(t) {
			c.Tools = append(c.Tools, t)
		} else if d := decls[t.Name]; d != nil {
			c.Tools = append(c.Tools, d)
		}
	}
	return &c
}

// registryDecls is a registry's tools by name, built at the first
// tools/list that needs it (see declaredTools).
type registryDecls struct {
	once   sync.Once
	byName map[string]*mcp.Tool
}

// declsByName returns r's tools by name.
func (r *Registry) declsByName() map[string]*mcp.Tool {
	r.decls.once.Do(func() {
		r.decls.byName = make(map[string]*mcp.Tool, len(r.Tools))
		for _, t := range r.Tools {
			r.decls.byName[t.Name] = t
		}
	})
	return r.decls.byName
}
