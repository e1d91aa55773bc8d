package host

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolsListedAsDeclaredAfterReload: after a reload that changed every
// tool and removed one, tools/list shows each tool of the new config with
// its new description and the schemas it was declared with, though the SDK
// was given stand-ins for those without an x-mcp-header annotation
// (addToolDeclared), and not the removed tool.
func TestToolsListedAsDeclaredAfterReload(t *testing.T) {
	first := loadSource(t, listingConfig+"tool \"gone\" {\n  template { text = \"x\" }\n}\n")
	p := startStdio(t, first)
	p.initialize()
	edited := strings.NewReplacer(`"Says hello."`, `"Says hello again."`,
		"tool \"weather\" {\n", "tool \"weather\" {\n  description = \"Weather, now described.\"\n",
		`input_schema = {`, "description = \"Tagged, now described.\"\n  input_schema = {").Replace(listingConfig)
	next := loadSource(t, edited)
	old, ch := p.srv.Apply(next)
	old.Retire()
	if len(ch.ToolsChanged) != 3 || len(ch.ToolsRemoved) != 1 {
		t.Fatalf("changes %+v, want three tools changed and one removed", ch)
	}
	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	// The list_changed notification comes first or not at all before
	// the answer; the answer is the line with an id.
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	r := p.next()
	for len(r.ID) == 0 {
		r = p.next()
	}
	if r.Error != nil {
		t.Fatalf("tools/list: %s", r.line)
	}
	if err := json.Unmarshal(r.Result, &list); err != nil {
		t.Fatal(err)
	}
	listed := map[string]int{}
	for i, lt := range list.Tools {
		listed[lt.Name] = i
	}
	if len(list.Tools) != len(next.Config.Tools) {
		t.Fatalf("tools/list has %d tools, want %d: %s", len(list.Tools), len(next.Config.Tools), r.Result)
	}
	for _, decl := range next.Config.Tools {
		t.Run(decl.Name, func(t *testing.T) {
			i, ok := listed[decl.Name]
			if !ok {
				t.Fatalf("%s is not listed: %s", decl.Name, r.Result)
			}
			got := list.Tools[i]
			if got.Description != decl.Description || !strings.Contains(got.Description, "again") && !strings.Contains(got.Description, "now described") { // each was edited
				t.Errorf("description listed %q, declared %q", got.Description, decl.Description)
			}
			if !sameCompact(t, got.InputSchema, decl.InputSchemaJSON) {
				t.Errorf("inputSchema listed:\n%s\ndeclared:\n%s", got.InputSchema, decl.InputSchemaJSON)
			}
			if decl.OutputSchemaJSON == nil && got.OutputSchema != nil {
				t.Errorf("outputSchema listed for a tool without one: %s", got.OutputSchema)
			} else if decl.OutputSchemaJSON != nil && !sameCompact(t, got.OutputSchema, decl.OutputSchemaJSON) {
				t.Errorf("outputSchema listed:\n%s\ndeclared:\n%s", got.OutputSchema, decl.OutputSchemaJSON)
			}
		})
	}
}

// TestDeclaredTools checks the replacement of stand-ins in a tools/list
// result by the registry's declarations.
func TestDeclaredTools(t *testing.T) {
	reg := loadSource(t, listingConfig)
	decl := reg.declsByName()
	stub := func(name string) *mcp.Tool { return &mcp.Tool{Name: name, InputSchema: stubInput} }
	other := &mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`)}
	for _, tc := range []struct {
		name string
		in   []*mcp.Tool
		want []*mcp.Tool
	}{
		{"none", []*mcp.Tool{}, []*mcp.Tool{}},
		{"no stand-in: as it is", []*mcp.Tool{other}, []*mcp.Tool{other}},
		{"stand-ins replaced in place", []*mcp.Tool{decl["tagged"], stub("hello"), stub("weather")}, []*mcp.Tool{decl["tagged"], decl["hello"], decl["weather"]}},
		{"a stand-in of a tool removed is left out", []*mcp.Tool{stub("gone"), stub("hello")}, []*mcp.Tool{decl["hello"]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &mcp.ListToolsResult{Tools: tc.in, NextCursor: "c"}
			got, ok := reg.declaredTools(in).(*mcp.ListToolsResult)
			if !ok || got.NextCursor != "c" || len(got.Tools) != len(tc.want) {
				t.Fatalf("got %+v, want %d tools and the cursor", got, len(tc.want))
			}
			for i := range tc.want {
				if got.Tools[i] != tc.want[i] {
					t.Errorf("tool %d is %+v, want %+v", i, got.Tools[i], tc.want[i])
				}
			}
			for _, tl := range tc.in {
				if isStub(tl) && tl.InputSchema != stubInput {
					t.Error("a stand-in in the SDK's result was changed")
				}
			}
		})
	}
}
