package openapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/toolhost/toolhost/adapters/all" // the backends
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/openapi"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// readFixture reads a document of testdata, gunzipped when its name ends
// in .gz.
func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

// convert parses and converts a fixture.
func convert(t *testing.T, name string, opts openapi.Options) []byte {
	t.Helper()
	doc, err := openapi.Parse(name, readFixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	opts.Source = name
	out, err := openapi.Convert(doc, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeConfig writes HCL to a file of a temporary directory.
func writeConfig(t *testing.T, hcl []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, hcl, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGolden converts each real document of testdata and compares the
// HCL with its golden file (go test -update rewrites them); each must
// load without errors and its examples must pass, as validate runs them.
func TestGolden(t *testing.T) {
	tests := []struct {
		golden, fixture string
		opts            openapi.Options
	}{
		{"petstore-3.0.hcl", "petstore-3.0.yaml", openapi.Options{}},
		{"petstore-expanded-3.0.hcl", "petstore-expanded-3.0.yaml", openapi.Options{}},
		{"tictactoe-3.1.hcl", "tictactoe-3.1.yaml", openapi.Options{BaseURL: "https://tictactoe.example.com/v1"}},
		{"petstore-2.0.hcl", "petstore-2.0.json", openapi.Options{}},
		{"clinic-2.0.hcl", "clinic-2.0.yaml", openapi.Options{}},
		{"github.hcl", "github-api.json.gz", openapi.Options{
			Tags:       []string{"meta", "emojis"},
			Operations: []string{"issues/create", "issues/list-for-repo", "repos/delete", "issues/get"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			got := convert(t, tc.fixture, tc.opts)
			path := filepath.Join("testdata", "golden", tc.golden)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the HCL made from %s differs from %s (go test -update rewrites it, then review the diff):\n%s", tc.fixture, path, got)
			}
			reg, diags := host.Load([]string{writeConfig(t, got)}, nil)
			if diags.HasErrors() {
				t.Fatalf("the HCL made from %s does not load:\n%s", tc.fixture, thcl.FormatDiagnostics(diags))
			}
			defer reg.Close()
			if rep := host.CheckExamples(context.Background(), reg); rep.Failed > 0 || rep.Diagnostics.HasErrors() {
				t.Fatalf("the examples made from %s fail:\n%s", tc.fixture, thcl.FormatDiagnostics(rep.Diagnostics))
			}
		})
	}
}

// petstore is a loopback server with three petstore operations: list
// and show (petstore 3.0) and add (petstore-expanded), which answers
// with the pet it made from the body it got; and GitHub's create an
// issue, which answers with issue.
func petstore(t *testing.T, issue []byte) *httptest.Server {
	t.Helper()
	pets := []map[string]any{{"id": 1, "name": "Rex", "tag": "dog"}, {"id": 2, "name": "Tom"}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pets", func(w http.ResponseWriter, r *http.Request) {
		out := pets
		if r.URL.Query().Get("limit") == "1" {
			out = pets[:1]
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("GET /pets/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.PathValue("id") != "2" {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]any{"code": 404, "message": "no such pet"})
			return
		}
		json.NewEncoder(w).Encode(pets[1:])
	})
	mux.HandleFunc("POST /pets", func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want a JSON body", http.StatusBadRequest)
			return
		}
		if _, ok := in["tag"]; ok && in["tag"] == nil {
			http.Error(w, "tag is null: a property left out must not be sent", http.StatusBadRequest)
			return
		}
		in["id"] = 3
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(in)
	})
	mux.HandleFunc("POST /repos/{owner}/{repo}/issues", func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "want a JSON body", http.StatusBadRequest)
			return
		}
		got, _ := json.Marshal(in)
		if r.PathValue("owner") != "octocat" || string(got) != `{"labels":["bug"],"title":"Found a bug"}` {
			http.Error(w, "unexpected request: "+r.URL.Path+" "+string(got), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write(issue)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestToolsCallLoopback serves the tools made from the petstores to an
// MCP client, calls them against a loopback server, and checks each
// structuredContent against the tool's outputSchema.
func TestToolsCallLoopback(t *testing.T) {
	// GitHub's issue example is its answer to create an issue.
	gh, err := openapi.Parse("github.json", readFixture(t, "github-api.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Components struct {
			Examples struct {
				Issue struct {
					Value json.RawMessage `json:"value"`
				} `json:"issue"`
			} `json:"examples"`
		} `json:"components"`
	}
	if err := json.Unmarshal(readFixture(t, "github-api.json.gz"), &raw); err != nil {
		t.Fatal(err)
	}
	issue := []byte(raw.Components.Examples.Issue.Value)
	srv := petstore(t, issue)
	t.Setenv("SWAGGER_PETSTORE_BASE_URL", srv.URL)
	t.Setenv("GITHUB_BASE_URL", srv.URL)
	dir := t.TempDir()
	ghHCL, err := openapi.Convert(gh, openapi.Options{Source: "github.json", Operations: []string{"issues/create"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.hcl"), ghHCL, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, fixture := range map[string]string{"a.hcl": "petstore-3.0.yaml", "b.hcl": "petstore-expanded-3.0.yaml"} {
		hcl := convert(t, fixture, openapi.Options{})
		if name == "b.hcl" {
			// Only add_pet: the other tools' names are the 3.0 file's.
			hcl = convert(t, fixture, openapi.Options{Operations: []string{"addPet"}})
		}
		if err := os.WriteFile(filepath.Join(dir, name), hcl, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, diags := host.Load([]string{dir}, nil)
	if diags.HasErrors() {
		t.Fatal(thcl.FormatDiagnostics(diags))
	}
	defer reg.Close()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := host.NewServer(reg, slog.New(slog.NewTextHandler(io.Discard, nil))).MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "import-test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		data, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if schemas[tool.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("outputSchema of %s: %v", tool.Name, err)
		}
	}
	tests := []struct {
		tool string
		args map[string]any
		want string // JSON of structuredContent
	}{
		{"list_pets", map[string]any{"limit": 1}, `{"items":[{"id":1,"name":"Rex","tag":"dog"}]}`},
		{"show_pet_by_id", map[string]any{"pet_id": "2"}, `{"items":[{"id":2,"name":"Tom"}]}`},
		{"add_pet", map[string]any{"name": "Rex"}, `{"id":3,"name":"Rex"}`},
		// An input_schema tool: the body's properties are arguments.
		{"issues_create", map[string]any{"owner": "octocat", "repo": "hello", "title": "Found a bug", "labels": []any{"bug"}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				data, _ := json.Marshal(res.Content)
				t.Fatalf("%s failed: %s", tc.tool, data)
			}
			got, _ := json.Marshal(res.StructuredContent)
			if tc.want == "" {
				if !strings.Contains(string(got), `"title":"Found a bug"`) {
					t.Errorf("structuredContent is %s, want the issue", got)
				}
			} else if string(got) != tc.want {
				t.Errorf("structuredContent is %s, want %s", got, tc.want)
			}
			rs := schemas[tc.tool]
			if rs == nil {
				t.Fatalf("%s has no outputSchema", tc.tool)
			}
			var inst any
			json.Unmarshal(got, &inst)
			if err := rs.Validate(inst); err != nil {
				t.Errorf("structuredContent %s does not pass the outputSchema: %v", got, err)
			}
		})
	}
}

// TestParseErrors checks that a document toolhost cannot read is
// refused with a message that names the place and the fix.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"not a document", "just: text\n", []string{"neither an openapi nor a swagger field"}},
		{"version", "openapi: 4.0.0\n", []string{`openapi is "4.0.0"`}},
		{"swagger 1", `{"swagger": "1.2"}`, []string{`swagger is "1.2"`}},
		{"broken yaml", "openapi: [3.0\n", []string{"spec.yaml:2:1: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence from line 1). Fix the document there"}},
		{"tab in indentation", "openapi: 3.0.0\ninfo:\n\ttitle: t\n", []string{"spec.yaml:3:1: invalid YAML: found character that cannot start any token"}},
		{"key twice", "openapi: 3.0.0\nopenapi: 3.1.0\n", []string{"spec.yaml:2:1: invalid YAML: mapping key \"openapi\" already defined at line 1"}},
		{"wrong shape", "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      security:\n        key: []\n      responses: {}\n", []string{"line 7", "/paths/~1a/get/security"}},
		{"bad JSON", "{\"openapi\": \"3.0.0\",\n \"paths\": {]}", []string{"spec.yaml:2:12: invalid JSON"}},
		{"missing ref", "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Gone'}\n", []string{"spec.yaml:11:", `"#/components/schemas/Gone" names nothing`}},
		{"external ref", "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          $ref: 'other.yaml#/r'\n", []string{"bundle the document first"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openapi.Parse("spec.yaml", []byte(tc.doc))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error %q does not say %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "spec.yaml") {
				t.Errorf("the error %q does not start with the document's name", err)
			}
		})
	}
	// A billion laughs: nine levels of nine aliases each.
	bomb := "openapi: 3.0.0\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for i := 1; i < 10; i++ {
		bomb += fmt.Sprintf("a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 9), ", "))
	}
	if _, err := openapi.Parse("bomb.yaml", []byte(bomb+"info: {title: t, version: '1'}\npaths: {}\n")); err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Errorf("a billion laughs gives %v, want the excessive aliasing error", err)
	}
	big := make([]byte, openapi.MaxSpecSize+1)
	if _, err := openapi.Parse("big.json", big); !errors.Is(err, openapi.ErrTooLarge) {
		t.Errorf("a document over the cap gives %v, want ErrTooLarge", err)
	}
}

// TestSelection checks the refusal of a large document without a
// selection, and the errors of a selection that matches nothing.
func TestSelection(t *testing.T) {
	doc, err := openapi.Parse("github.json", readFixture(t, "github-api.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = openapi.Convert(doc, openapi.Options{Source: "github.json"})
	var sel *openapi.SelectionError
	if !errors.As(err, &sel) {
		t.Fatalf("no selection on 1,000 operations gives %v, want a SelectionError", err)
	}
	if sel.Total < 1000 || !strings.Contains(sel.TagList(), "issues") || !strings.Contains(err.Error(), "--tag") {
		t.Errorf("the refusal says %q with the tags\n%s", err, sel.TagList())
	}
	for _, tc := range []struct {
		opts openapi.Options
		want string
	}{
		{openapi.Options{Tags: []string{"isues"}}, `Did you mean "issues"?`},
		{openapi.Options{Operations: []string{"issues/craete"}}, `Did you mean "issues/create"?`},
		{openapi.Options{Operations: []string{"meta/root"}, BaseURL: "ftp://x"}, "--base-url"},
	} {
		_, err := openapi.Convert(doc, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v gives %v, want %q", tc.opts, err, tc.want)
		}
	}
}
