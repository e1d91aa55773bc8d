package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestContentForOlderProtocols: a client that negotiated a protocol version
// without resource_link items gets a text item naming the resource instead;
// newer clients get the link.
func TestContentForOlderProtocols(t *testing.T) {
	for _, tc := range []struct {
		version  string
		wantLink bool
	}{
		{"2024-11-05", false},
		{"2025-03-26", false},
		{"2025-06-18", true},
	} {
		t.Run(tc.version, func(t *testing.T) {
			s := startServe(t, "--watch=false", filepath.Join("..", "..", "examples", "tools.hcl"))
			s.initialize(tc.version)
			s.sendJSON(call(1, "get_report", nil))
			m := s.recv()
			raw, _ := json.Marshal(m["result"])
			var res struct {
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
					URI  string `json:"uri"`
				} `json:"content"`
			}
			if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 3 {
				t.Fatalf("result = %s", raw)
			}
			last := res.Content[2]
			if tc.wantLink {
				if last.Type != "resource_link" || last.URI != "file:///reports/q4.md" {
					t.Fatalf("want a resource_link, got %s", raw)
				}
				return
			}
			if last.Type != "text" || !strings.Contains(last.Text, "file:///reports/q4.md") {
				t.Fatalf("want a text item naming the resource, got %s", raw)
			}
		})
	}
}
