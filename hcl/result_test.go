package hcl

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestResultSchema checks the output schema of a result block's fields,
// and that the annotations' title stands in for a missing tool title.
func TestResultSchema(t *testing.T) {
	cfg := mustLoad(t, filepath.Join("testdata", "schemas", "results.hcl"))
	var hot *Tool
	for _, tool := range cfg.Tools {
		if tool.Name == "hot_list" {
			hot = tool
		}
		if tool.Name == "delete_all" {
			if tool.OutputSchema() != nil {
				t.Errorf("delete_all has no result block but an output schema")
			}
			a := tool.Annotations
			if a == nil || a.DestructiveHint == nil || !*a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
				t.Errorf("delete_all annotations = %+v", a)
			}
			if tool.Title != "Delete everything" {
				t.Errorf("delete_all title = %q, want the annotations' title", tool.Title)
			}
		}
	}
	if hot == nil {
		t.Fatal("no tool hot_list")
	}
	if hot.Title != "Hot list" {
		t.Errorf("title = %q: the tool's own title must win over the annotations' title", hot.Title)
	}
	out := hot.OutputSchema()
	if got, want := strings.Join(out.Required, ","), "updated_at,count,ok,topics,counts,raw"; got != want {
		t.Errorf("output required = %s, want %s", got, want)
	}
	if out.AdditionalProperties != nil {
		t.Errorf("the output schema must not forbid additional properties")
	}
	tests := []struct{ field, want string }{
		{"updated_at", `{"type":"string","description":"When the list was last updated."}`},
		{"count", `{"type":"integer"}`},
		{"score", `{"type":"number"}`},
		{"ok", `{"type":"boolean"}`},
		{"topics", `{"type":"array","items":{"type":"object","required":["title","hot","index"],"properties":{"title":{"type":"string"},"hot":{"type":"string"},"url":{"type":"string"},"index":{"type":"number"}}}}`},
		{"counts", `{"type":"object","additionalProperties":{"type":"integer"}}`},
		{"raw", `true`},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			b, err := json.Marshal(out.Properties[tt.field])
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("\n got: %s\nwant: %s", b, tt.want)
			}
		})
	}
}
