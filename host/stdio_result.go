package host

import (
	"bytes"
	"encoding/json"
	"reflect"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The encoding of a tool's result on the direct call path. The SDK encodes
// a CallToolResult through its MarshalJSON, which marshals a wrapper
// struct by reflection, each text content through a MarshalJSON of its
// own, and then has encoding/json check and compact what they return: a
// tenth of the server's CPU for a template call. A result of text contents
// only, without _meta, annotations, structured content or input requests,
// which is what most tools answer, is written here directly, in the bytes
// the SDK would write; any other CallToolResult is encoded in one pass
// (result_wire.go), and what neither takes goes through the SDK.s
// encoding.

// marshalResult encodes a result as the SDK's connection does: JSON
// without HTML escaping around what the result's MarshalJSON writes, no
// trailing newline.
func marshalResult(res mcp.Result) (json.RawMessage, error) {
	if ctr, ok := res.(*mcp.CallToolResult); ok {
		if b, ok := appendTextResult(nil, ctr); ok {
			return b, nil
		}
		// Structured content, annotations: one pass of encoding/json
		// (result_wire.go) rather than the SDK's marshaller.
		if data, ok, err := encodeCallResult(ctr); ok {
			return data, err
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// appendTextResult appends r as the SDK encodes it, when r is a result of
// text contents only with nothing else but isError; ok is false for any
// other, and b is then not to be used.
func appendTextResult(b []byte, r *mcp.CallToolResult) (_ []byte, ok bool) {
	if len(r.Meta) > 0 || r.StructuredContent != nil || r.InputRequests != nil || r.RequestState != "" || resultTypeField < 0 {
		return nil, false
	}
	resultType := reflect.ValueOf(r).Elem().Field(resultTypeField).String()
	if resultType != "" && !plainASCII(resultType) {
		return nil, false
	}
	size := 32
	for _, c := range r.Content {
		tc, isText := c.(*mcp.TextContent)
		if !isText || tc == nil || len(tc.Meta) > 0 || tc.Annotations != nil {
			return nil, false
		}
		size += len(tc.Text) + 32
	}
	if b == nil {
		b = make([]byte, 0, size)
	}
	b = append(b, `{"content":`...)
	if r.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range r.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"text","text":`...)
			b = appendTextString(b, c.(*mcp.TextContent).Text)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	if resultType != "" {
		b = append(b, `,"resultType":"`...)
		b = append(b, resultType...)
		b = append(b, '"')
	}
	return append(b, '}'), true
}

// plainASCII reports whether s is printable ASCII that encoding/json writes
// unchanged between quotes (with HTML escaping, as json.Marshal does).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// appendTextString appends s quoted as json.Marshal quotes it (the SDK's
// TextContent.MarshalJSON uses it): appendJSONString for a string without
// control characters and of valid UTF-8, json.Marshal for any other.
func appendTextString(b []byte, s string) []byte {
	extra, ascii, ok := jsonExtra(s)
	if !ok || !ascii && !utf8.ValidString(s) {
		return appendMarshaled(b, s)
	}
	return appendQuoted(b, s, extra)
}

// appendMarshaled appends json.Marshal's encoding of s.
func appendMarshaled(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}
