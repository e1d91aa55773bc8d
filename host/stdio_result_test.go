package host

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMarshalResultAsSDK: the direct path's encoding of a tool's result is
// the SDK's, byte for byte, for the results it writes itself and for those
// it leaves to the SDK.
func TestMarshalResultAsSDK(t *testing.T) {
	text := func(s ...string) []mcp.Content {
		out := make([]mcp.Content, len(s))
		for i, x := range s {
			out[i] = &mcp.TextContent{Text: x}
		}
		return out
	}
	tests := []struct {
		name   string
		res    *mcp.CallToolResult
		direct bool // written without the SDK's encoding
	}{
		{"plain text", &mcp.CallToolResult{Content: text("hello world")}, true},
		{"HTML characters and quotes", &mcp.CallToolResult{Content: text(`<a href="x">&amp;</a> \ done`)}, true},
		{"control characters", &mcp.CallToolResult{Content: text("a\tb\nc\x00d\x1f")}, true},
		{"invalid UTF-8", &mcp.CallToolResult{Content: text("a\xffb\xe2\x80")}, true},
		{"line and paragraph separators", &mcp.CallToolResult{Content: text("a\u2028b\u2029c é 日本")}, true},
		{"empty text", &mcp.CallToolResult{Content: text("")}, true},
		{"several texts, an error", &mcp.CallToolResult{Content: text("one", "two"), IsError: true}, true},
		{"no content", &mcp.CallToolResult{}, true},
		{"empty content", &mcp.CallToolResult{Content: []mcp.Content{}}, true},
		{"structured content", &mcp.CallToolResult{Content: text("{}"), StructuredContent: map[string]any{"a": 1}}, false},
		{"result _meta", &mcp.CallToolResult{Content: text("x"), Meta: mcp.Meta{"k": "v"}}, false},
		{"content _meta", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x", Meta: mcp.Meta{"k": 1}}}}, false},
		{"annotations", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: 1}}}}, false},
		{"an image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("abc"), MIMEType: "image/png"}}}, false},
		{"request state", &mcp.CallToolResult{Content: text("x"), RequestState: "s"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tt.res); err != nil {
				t.Fatal(err)
			}
			want := bytes.TrimRight(buf.Bytes(), "\n")
			got, err := marshalResult(tt.res)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("encoded as\n%s\nthe SDK encodes\n%s", got, want)
			}
			if _, direct := appendTextResult(nil, tt.res); direct != tt.direct {
				t.Errorf("written directly: %v, want %v", direct, tt.direct)
			}
		})
	}
}
