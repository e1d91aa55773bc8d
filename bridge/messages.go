package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host"
)

// message is the envelope of every MCP frame's JSON.
type message struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// outcome is the "result" object of a result message.
type outcome struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// idText is a call id for logs: the string itself, or the JSON of another
// value.
func idText(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s
	}
	return string(id)
}

// text joins the items of a result, one a line: text as it is, the text of
// an embedded text resource, and for what the protocol cannot carry
// (images, audio, binary resources, links) a line that says what it was,
// so that the server's model is not told "here is the report:" and then
// given nothing.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.EmbeddedResource:
			switch {
			case c.Resource == nil:
			case c.Resource.Text != "" || len(c.Resource.Blob) == 0:
				parts = append(parts, c.Resource.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource %s, %s, %d bytes, not sent: the framed protocol carries text]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob)))
			}
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s]", c.URI))
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image, %s, %d bytes, not sent: the framed protocol carries text]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio, %s, %d bytes, not sent: the framed protocol carries text]", c.MIMEType, len(c.Data)))
		}
	}
	return strings.Join(parts, "\n")
}

// resultMessage renders {"type":"result","data":{"call_id":...,"result":...}}.
// The call id is sent back exactly as it came.
func resultMessage(id json.RawMessage, out outcome) ([]byte, error) {
	return marshal(message{Type: "result", Data: mustJSON(struct {
		CallID json.RawMessage `json:"call_id"`
		Result outcome         `json:"result"`
	}{id, out})})
}

func mustJSON(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

// registerMessage renders the register message for the tools of reg, in
// the config's order: each tool's description (its title, or its name, when
// it has none) and its inputSchema as parameters.
func registerMessage(reg *host.Registry) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"register","data":{"services":{`)
	for i, t := range reg.Tools {
		if i > 0 {
			b.WriteByte(',')
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		if desc == "" {
			desc = t.Name
		}
		name, err := marshal(t.Name)
		if err != nil {
			return nil, err
		}
		d, err := marshal(desc)
		if err != nil {
			return nil, err
		}
		schema, ok := t.InputSchema.(json.RawMessage)
		if !ok {
			if schema, err = marshal(t.InputSchema); err != nil {
				return nil, err
			}
		}
		b.Write(name)
		b.WriteString(`:{"description":`)
		b.Write(d)
		b.WriteString(`,"parameters":`)
		b.Write(schema)
		b.WriteByte('}')
	}
	b.WriteString(`}}}`)
	var compact bytes.Buffer
	if err := json.Compact(&compact, b.Bytes()); err != nil {
		return nil, err
	}
	return hideMarkers(compact.Bytes()), nil
}

// marshal encodes v as compact JSON without HTML escaping, and with '#'
// escaped wherever "##" would appear (see hideMarkers).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return hideMarkers(bytes.TrimRight(b.Bytes(), "\n")), nil
}

// hideMarkers rewrites every '#' of a JSON text as \u0023 when the text
// contains "##", so that no "##END" or "##START" appears inside a payload
// and a server that looks for the first "##END" still finds the right one.
// In valid JSON '#' occurs only inside strings, where \u0023 means the same.
func hideMarkers(b []byte) []byte {
	if !bytes.Contains(b, []byte("##")) {
		return b
	}
	return bytes.ReplaceAll(b, []byte("#"), []byte(`\u0023`))
}

// frameSize is the size on the wire of an MCP frame: the markers, the type
// byte, the task id, the bracketed sequence number and the payload.
func frameSize(taskID, seq string, payload []byte) int {
	return len(startMarker) + 1 + len(taskID) + len(seq) + 2 + len(payload) + len(endMarker)
}

// shortMethod is a call's method, which the server chose, cut for a
// message: at most maxQuotedMethod bytes of valid UTF-8, and "..." when
// cut, as toolhost quotes a client's URIs and names.
func shortMethod(m string) string {
	if len(m) <= maxQuotedMethod {
		return strings.ToValidUTF8(m, "\uFFFD")
	}
	return strings.ToValidUTF8(m[:maxQuotedMethod], "\uFFFD") + "..."
}

// maxQuotedMethod is the most bytes of a method a message quotes.
const maxQuotedMethod = 200

// payloadPreview is the start of a payload, for a log line.
func payloadPreview(p []byte) string {
	const max = 80
	if len(p) <= max {
		return string(p)
	}
	return string(bytes.ToValidUTF8(p[:max], nil)) + "..."
}
