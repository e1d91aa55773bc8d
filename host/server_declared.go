package host

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addToolDeclared registers a tool at a reload. The SDK's AddTool decodes
// a schema given as JSON twice, each time through a new decoder with a
// 32 KB buffer, to check its type and its x-mcp-header annotations: at a
// reload of every tool of a large config that was most of what the reload
// allocated (BENCHMARKS.md, "Every tool edited"). A tool whose input schema
// has no annotation is registered as a copy with the stand-in schemas
// (stubInput, stubOutput), which the SDK checks without decoding them
// again; the copy is never changed after, so a session listing tools
// while it is registered reads nothing being written. What the SDK lists
// for such a copy is replaced by the declaration of the registry in
// service (see declaredTools), which calls use too. A tool with the
// annotation is registered as it is: the SDK checks the headers of its
// calls against it.
func (s *Server) addToolDeclared(t *mcp.Tool) {
	in, ok := t.InputSchema.(json.RawMessage)
	if !ok || bytes.Contains(in, headerAnnotation) {
		s.addTool(t)
		return
	}
	stub := *t
	stub.InputSchema = stubInput
	if t.OutputSchema != nil {
		stub.OutputSchema = stubOutput
	}
	s.addTool(&stub)
}

// isStub reports whether t is a copy addToolDeclared registered.
func isStub(t *mcp.Tool) bool {
	in, ok := t.InputSchema.(*jsonschema.Schema)
	return ok && in == stubInput
}

// declaredTools puts, in a tools/list result, the declaration of reg
// (the registry in service) in place of each stand-in addToolDeclared
// registered. A stand-in whose tool reg does not have (a reload removed
// it, and the SDK has not yet) is left out, as calls to it find no tool.
// A result without stand-ins is returned as it is.
func (r *Registry) declaredTools(res mcp.Result) mcp.Result {
	list, ok := res.(*mcp.ListToolsResult)
	if !ok || list == nil || r == nil {
		return res
	}
	first := -1
	for i, t := range list.Tools {
		if isStub(t) {
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
		if !isStub(t) {
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
