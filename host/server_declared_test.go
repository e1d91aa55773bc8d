package host

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolsListedAsDeclaredAfterReload: after each of a sequence of
// reloads (every tool changed and one removed; every tool changed again,
// and the annotated tool's annotation taken out; put back), tools/list
// shows each tool of the config in service with its description and the
// schemas it was declared with, though the SDK holds stand-ins for most
// (server_declared.go), and no tool removed.
func TestToolsListedAsDeclaredAfterReload(t *testing.T) {
	p := startStdio(t, loadSource(t, listingConfig+"tool \"gone\" {\n  template { text = \"x\" }\n}\n"))
	p.initialize()
	describe := func(n string) *strings.Replacer {
		return strings.NewReplacer(`"Says hello."`, `"Says hello `+n+`."`,
			"tool \"weather\" {\n", "tool \"weather\" {\n  description = \"Weather "+n+".\"\n",
			`input_schema = {`, "description = \"Tagged "+n+".\"\n  input_schema = {")
	}
	unannotated := strings.Replace(listingConfig, `, "x-mcp-header" = "Region"`, "", 1)
	for i, tc := range []struct {
		name, src                string
		changed, removed, wantIn int
	}{
		{"every tool changed, one removed", describe("1").Replace(listingConfig), 3, 1, 3},
		{"every tool changed, the annotation taken out", describe("2").Replace(unannotated), 3, 0, 3},
		{"the annotation put back", describe("2").Replace(listingConfig), 1, 0, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := loadSource(t, tc.src)
			old, ch := p.srv.Apply(next)
			old.Retire()
			if len(ch.ToolsChanged) != tc.changed || len(ch.ToolsRemoved) != tc.removed {
				t.Fatalf("changes %+v, want %d tools changed and %d removed", ch, tc.changed, tc.removed)
			}
			var list struct {
				Tools []struct {
					Name         string          `json:"name"`
					Description  string          `json:"description"`
					InputSchema  json.RawMessage `json:"inputSchema"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
			}
			// A list_changed notification may come before the answer:
			// the answer is the line with an id.
			p.send(`{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"tools/list"}`)
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
			if len(list.Tools) != tc.wantIn {
				t.Fatalf("tools/list has %d tools, want %d: %s", len(list.Tools), tc.wantIn, r.Result)
			}
			for _, got := range list.Tools {
				decl := next.tools[got.Name]
				if decl == nil {
					t.Fatalf("%s is listed, but not in the config: %s", got.Name, r.Result)
				}
				if got.Description != decl.Description {
					t.Errorf("%s: description listed %q, declared %q", got.Name, got.Description, decl.Description)
				}
				if !sameCompact(t, got.InputSchema, decl.InputSchemaJSON) {
					t.Errorf("%s: inputSchema listed:\n%s\ndeclared:\n%s", got.Name, got.InputSchema, decl.InputSchemaJSON)
				}
				if decl.OutputSchemaJSON == nil && got.OutputSchema != nil {
					t.Errorf("%s: outputSchema listed for a tool without one: %s", got.Name, got.OutputSchema)
				} else if decl.OutputSchemaJSON != nil && !sameCompact(t, got.OutputSchema, decl.OutputSchemaJSON) {
					t.Errorf("%s: outputSchema listed:\n%s\ndeclared:\n%s", got.Name, got.OutputSchema, decl.OutputSchemaJSON)
				}
			}
		})
	}
}

// TestRegistrations: the SDK is given a stand-in for a tool without an
// x-mcp-header annotation once, the tool itself for one with it every
// time, and one stand-in again when nothing else is to be registered (so
// that it tells clients the list changed).
func TestRegistrations(t *testing.T) {
	plain := func(name string) *mcp.Tool {
		return &mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	tagged := &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}}`)}
	s := &Server{}
	for _, tc := range []struct {
		name   string
		tools  []*mcp.Tool
		forget []string
		want   []string // "stand-in NAME" or "own NAME"
	}{
		{"new tools", []*mcp.Tool{plain("a"), plain("b"), tagged}, nil, []string{"stand-in a", "stand-in b", "own t"}},
		{"changed again: one stand-in to notify", []*mcp.Tool{plain("a"), plain("b")}, nil, []string{"stand-in a"}},
		{"the annotated tool changed again", []*mcp.Tool{plain("a"), tagged}, nil, []string{"own t"}},
		{"the annotation taken out", []*mcp.Tool{plain("t")}, nil, []string{"stand-in t"}},
		{"a removed tool added back", []*mcp.Tool{plain("a"), plain("b")}, []string{"b"}, []string{"stand-in b"}},
		{"nothing", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.forgetStandIns(tc.forget)
			var got []string
			for _, r := range s.registrations(tc.tools) {
				kind := "own "
				if isStandIn(r) {
					kind = "stand-in "
				}
				got = append(got, kind+r.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("registered %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDeclaredTools checks the replacement of stand-ins in a tools/list
// result by the registry's declarations.
func TestDeclaredTools(t *testing.T) {
	reg := loadSource(t, listingConfig)
	decl := reg.declsByName()
	other := &mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`)}
	for _, tc := range []struct {
		name string
		in   []*mcp.Tool
		want []*mcp.Tool
	}{
		{"none", []*mcp.Tool{}, []*mcp.Tool{}},
		{"no stand-in: as it is", []*mcp.Tool{other}, []*mcp.Tool{other}},
		{"stand-ins replaced in place", []*mcp.Tool{decl["tagged"], standIn("hello"), standIn("weather")}, []*mcp.Tool{decl["tagged"], decl["hello"], decl["weather"]}},
		{"a stand-in of a tool removed is left out", []*mcp.Tool{standIn("gone"), standIn("hello")}, []*mcp.Tool{decl["hello"]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &mcp.ListToolsResult{Tools: tc.in, NextCursor: "c"}
			before := append([]*mcp.Tool(nil), tc.in...)
			got, ok := reg.declaredTools(in).(*mcp.ListToolsResult)
			if !ok || got.NextCursor != "c" || len(got.Tools) != len(tc.want) {
				t.Fatalf("got %+v, want %d tools and the cursor", got, len(tc.want))
			}
			for i := range tc.want {
				if got.Tools[i] != tc.want[i] {
					t.Errorf("tool %d is %+v, want %+v", i, got.Tools[i], tc.want[i])
				}
			}
			for i := range before {
				if in.Tools[i] != before[i] {
					t.Errorf("the SDK's result was changed at %d", i)
				}
			}
		})
	}
}

// TestStandInNotEncoded: a stand-in's input schema cannot be encoded, so
// the SDK, which encodes and decodes a schema to find x-mcp-header
// annotations, skips the decoding (server_declared.go, stubInput). The
// registration of a stand-in then allocates a fraction of the decoder's
// 32 KB buffer: if a new SDK decoded the schema in another way, or
// refused it, this fails, and stubInput needs another look.
func TestStandInNotEncoded(t *testing.T) {
	if b, err := json.Marshal(standIn("hello")); err == nil {
		t.Fatalf("a stand-in encoded as %s, want an error", b)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	const n = 64
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("tool%d", i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, name := range names {
		srv.AddTool(standIn(name), handler)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 8<<10 {
		t.Errorf("registering a stand-in allocated %d bytes, want under 8 KB: the SDK decoded its schema", per)
	}
}

// BenchmarkAddStandIn is the SDK's registration of one stand-in.
func BenchmarkAddStandIn(b *testing.B) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		srv.AddTool(standIn("tool"+strconv.Itoa(i)), handler)
	}
}
