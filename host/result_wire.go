package host

import (
	"encoding/json"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultWire is the wire form of a tools/call result, as the SDK's
// CallToolResult.MarshalJSON writes it (its fields in the same order),
// with its text items as textWire. encoding/json writes it in one pass:
// the SDK's marshaller encodes each text item with json.Marshal, then
// again the whole result, and encoding/json re-reads (compacts) what each
// MarshalJSON returns, so the text of a large answer (an http tool's 2 KB
// body) was escaped once and scanned three times more.
type resultWire struct {
	Meta              mcp.Meta `json:"_meta,omitempty"`
	Content           []any    `json:"content"`
	StructuredContent any      `json:"structuredContent,omitempty"`
	IsError           bool     `json:"isError,omitempty"`
	RequestState      string   `json:"requestState,omitempty"`
	ResultType        string   `json:"resultType,omitempty"`
}

// textWire is the wire form of a text content item, as the SDK's
// TextContent.MarshalJSON writes it.
type textWire struct {
	Type        string           `json:"type"`
	Text        string           `json:"text"`
	Meta        mcp.Meta         `json:"_meta,omitempty"`
	Annotations *mcp.Annotations `json:"annotations,omitempty"`
}

// resultTypeField is the index of CallToolResult's unexported resultType
// (which the SDK sets to "complete" for clients of 2026-07-28 and later),
// or -1 when this SDK has no such string field: then every result goes
// through the SDK's marshaller.
var resultTypeField = func() int {
	f, ok := reflect.TypeFor[mcp.CallToolResult]().FieldByName("resultType")
	if !ok || len(f.Index) != 1 || f.Type.Kind() != reflect.String {
		return -1
	}
	return f.Index[0]
}()

// encodeCallResult encodes res as the SDK does, in one pass (see
// resultWire). ok is false for a result it leaves to the SDK's
// marshaller: one that asks for input, or has a nil content item.
func encodeCallResult(res *mcp.CallToolResult) (data json.RawMessage, ok bool, err error) {
	if res == nil || res.InputRequests != nil || resultTypeField < 0 {
		return nil, false, nil
	}
	w := resultWire{
		Meta:              res.Meta,
		StructuredContent: res.StructuredContent,
		IsError:           res.IsError,
		RequestState:      res.RequestState,
		ResultType:        reflect.ValueOf(res).Elem().Field(resultTypeField).String(),
	}
	if res.Content != nil {
		w.Content = make([]any, len(res.Content))
		texts := make([]textWire, len(res.Content))
		for i, c := range res.Content {
			switch c := c.(type) {
			case nil:
				return nil, false, nil
			case *mcp.TextContent:
				if c == nil {
					return nil, false, nil
				}
				texts[i] = textWire{Type: "text", Text: c.Text, Meta: c.Meta, Annotations: c.Annotations}
				w.Content[i] = &texts[i]
			default:
				w.Content[i] = c
			}
		}
	}
	data, err = json.Marshal(&w)
	return data, true, err
}
