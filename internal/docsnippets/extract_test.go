package docsnippets

import (
	"testing"
)

// TestExtract reads fences as CommonMark writes them: indented in a list,
// with tildes, longer than three (holding a shorter one), and markers
// only on the lines right before a fence.
func TestExtract(t *testing.T) {
	tests := []struct {
		name, src string
		want      []Block
	}{
		{"list item", "1. Run:\n\n   ```sh\n   toolhost validate\n   ```\n", []Block{{Line: 3, Lang: "sh", Text: "toolhost validate\n"}}},
		{"tildes", "~~~hcl\ntool \"a\" {}\n~~~\n", []Block{{Line: 1, Lang: "hcl", Text: "tool \"a\" {}\n"}}},
		{"longer fence", "````md\n```sh\nx\n```\n````\n", []Block{{Line: 1, Lang: "md", Text: "```sh\nx\n```\n"}}},
		{"info string", "```hcl title=\"tools.hcl\"\n```\n", []Block{{Line: 1, Lang: "hcl"}}},
		{"markers", "<!-- snippet: skip (a reason) -->\n<!-- snippet: fragment -->\n```json\n\"a\": 1\n```\n", []Block{{Line: 3, Lang: "json", Text: "\"a\": 1\n", Skip: "(a reason)", Fragment: true}}},
		{"dir", "<!-- snippet: dir examples -->\n```HCL\n```\n", []Block{{Line: 2, Lang: "hcl", Dir: "examples"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := Extract("x.md", []byte(tt.src))
			if len(problems) > 0 {
				t.Fatalf("problems: %v", problems)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d blocks, want %d: %+v", len(got), len(tt.want), got)
			}
			for i := range got {
				tt.want[i].File = "x.md"
				if got[i] != tt.want[i] {
					t.Errorf("block %d = %+v\nwant %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestToolhostArgs tells the commands run from those left, with why.
func TestToolhostArgs(t *testing.T) {
	tests := []struct {
		args  []string
		stdin bool
		run   bool
	}{
		{[]string{"toolhost", "validate", "x.hcl"}, false, true},
		{[]string{"go", "run", "./cmd/toolhost", "call", "x.hcl", "t"}, false, true},
		{[]string{"toolhost", "fmt", "--check"}, false, true},
		{[]string{"toolhost", "fmt", "x.hcl"}, false, false},
		{[]string{"toolhost", "import", "openapi", "a.yaml"}, false, true},
		{[]string{"toolhost", "serve", "x.hcl"}, false, false},
		{[]string{"toolhost", "setup", "cursor"}, false, false},
		{[]string{"npm", "install", "-g", "toolhost"}, false, false},
		{[]string{"toolhost"}, false, false},
		{[]string{"go", "run", "./cmd/toolhost", "serve", "x.hcl"}, true, true},
		{[]string{"toolhost", "serve", "--listen", "127.0.0.1:0", "x.hcl"}, true, false},
	}
	for _, tt := range tests {
		sub, why := toolhostArgs(tt.args, tt.stdin)
		if (sub != nil) != tt.run || (why == "") != tt.run {
			t.Errorf("%q: args %q, why %q; want run %v", tt.args, sub, why, tt.run)
		}
	}
}
