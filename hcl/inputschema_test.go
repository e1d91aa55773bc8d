package hcl

import (
	"path/filepath"
	"testing"
)

// TestInputSchemaAsWritten: the input schema clients get is what the config
// writes, in each way it can write it (testdata/inputschema_order.hcl):
// every keyword kept, object keys in the order written, strings not
// HTML-escaped, a string of JSON kept but for its space.
func TestInputSchemaAsWritten(t *testing.T) {
	cfg := mustLoad(t, filepath.Join("testdata", "inputschema_order.hcl"))
	tests := []struct{ tool, want string }{
		{"object", `{"type":"object","required":["zeta"],"properties":{"zeta":{"type":"string","description":"<b>bold</b> & more","x-order":1},"alpha":{"type":["number","null"],"default":null,"maximum":1.5,"examples":[1,0.25]}},"$comment":"kept","additionalProperties":false}`},
		{"parens", `{"type":"object","properties":{"b":{"const":true},"a":{}}}`},
		{"jsonencode", `{"type":"object","$defs":{"z":{"type":"string"},"a":{"type":"integer"}}}`},
		{"heredoc", `{"type":"object","properties":{"s":{"pattern":"^\\d+\u0026$","type":"string"}},"if":{"required":["s"]},"then":{"minProperties":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			var tool *Tool
			for _, tl := range cfg.Tools {
				if tl.Name == tt.tool {
					tool = tl
				}
			}
			if tool == nil {
				t.Fatalf("no tool %q", tt.tool)
			}
			if got := string(tool.InputSchemaJSON); got != tt.want {
				t.Errorf("input schema\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
