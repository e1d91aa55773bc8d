package testconfig

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResultText joins the text content items of a tool call's result, for
// assertions and failure messages.
func ResultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
