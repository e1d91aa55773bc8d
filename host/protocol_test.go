package host

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestForProtocol(t *testing.T) {
	items := func() []mcp.Content {
		return []mcp.Content{
			&mcp.TextContent{Text: "hi"},
			&mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
			&mcp.ResourceLink{URI: "file:///r.md", Name: "r.md", Title: "Report", Description: "Q4"},
		}
	}
	for _, tc := range []struct {
		version string
		want    []string // the type of each item afterwards, or its text
	}{
		{"", []string{"hi", "audio", "link"}},
		{"2025-11-25", []string{"hi", "audio", "link"}},
		{"2025-06-18", []string{"hi", "audio", "link"}},
		{"2025-03-26", []string{"hi", "audio", "Resource Report: file:///r.md (Q4)"}},
		{"2024-11-05", []string{"hi", "[audio/wav audio, 4 bytes, left out: protocol version 2024-11-05 has no audio content]", "Resource Report: file:///r.md (Q4)"}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			res := &mcp.CallToolResult{Content: items()}
			forProtocol(res, tc.version)
			for i, c := range res.Content {
				var got string
				switch c := c.(type) {
				case *mcp.TextContent:
					got = c.Text
				case *mcp.AudioContent:
					got = "audio"
				case *mcp.ResourceLink:
					got = "link"
				}
				if got != tc.want[i] {
					t.Errorf("item %d = %q, want %q", i, got, tc.want[i])
				}
			}
		})
	}
	forProtocol(nil, "2024-11-05") // a call that failed has no result
}
