package host

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkEncoded is a result as the SDK's marshaller writes it, through the
// encoder stdio used before encodeCallResult.
func sdkEncoded(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// TestEncodeCallResultAsSDK checks that encodeCallResult writes the same
// bytes as the SDK's marshaller, for every kind of result a tool returns.
func TestEncodeCallResultAsSDK(t *testing.T) {
	if resultTypeField < 0 {
		t.Fatal("mcp.CallToolResult has no resultType string field: update resultWire to the SDK's wire form")
	}
	size := int64(3)
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
	}{
		{"text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}},
		{"empty text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{}}}},
		{"escapes", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "<a href=\"x?a=1&b=2\">\u2028\u2029\t\x01 é \xff\xfe \\ 😀</a>"}}}},
		{"nil content", &mcp.CallToolResult{}},
		{"empty content", &mcp.CallToolResult{Content: []mcp.Content{}}},
		{"error", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "failed: <x>"}}}},
		{"structured", &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"a":"<b>&"}`}},
			StructuredContent: json.RawMessage(`{"a": "<b>&", "n": [1, 2]}`),
		}},
		{"structured map", &mcp.CallToolResult{StructuredContent: map[string]any{"z": 1, "a": "<"}}},
		{"meta and annotations", &mcp.CallToolResult{
			Meta: mcp.Meta{"k": "<v>", "a": 1},
			Content: []mcp.Content{&mcp.TextContent{Text: "t", Meta: mcp.Meta{"m": true},
				Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.5, LastModified: "2026-01-01T00:00:00Z"}}},
		}},
		{"other items", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "a"},
			&mcp.ImageContent{Data: []byte{0, 1, 2, 255}, MIMEType: "image/png"},
			&mcp.AudioContent{Data: []byte("wav"), MIMEType: "audio/wav"},
			&mcp.ResourceLink{URI: "file:///a?b=<c>", Name: "a", Size: &size},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b", MIMEType: "text/plain", Text: "b & c"}},
		}}},
		{"request state", &mcp.CallToolResult{RequestState: "s<1>", Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}},
		{"result type", withResultType(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}})},
	} {
		// The result type is the one field read from outside the SDK's
		// exported ones: it must come out.
		if tc.name == "result type" {
			if got, _, _ := encodeCallResult(tc.res); !bytes.Contains(got, []byte(`"resultType":"complete"`)) {
				t.Errorf("encodeCallResult wrote %s, without the result type", got)
			}
		}
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := encodeCallResult(tc.res)
			if err != nil || !ok {
				t.Fatalf("encodeCallResult: ok %v, error %v", ok, err)
			}
			if want := sdkEncoded(t, tc.res); !bytes.Equal(got, want) {
				t.Errorf("encodeCallResult wrote\n%s\nthe SDK writes\n%s", got, want)
			}
			if viaStdio, err := marshalResult(tc.res); err != nil || !bytes.Equal(viaStdio, got) {
				t.Errorf("marshalResult wrote %s (error %v), want %s", viaStdio, err, got)
			}
		})
	}
}

// TestEncodeCallResultLeavesToSDK checks the results encodeCallResult
// leaves to the SDK's marshaller, and that marshalResult still encodes
// them as the SDK does.
func TestEncodeCallResultLeavesToSDK(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
	}{
		{"input requests", &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"a": &mcp.ElicitParams{Message: "m"}}}},
		{"nil item", &mcp.CallToolResult{Content: []mcp.Content{nil}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok, _ := encodeCallResult(tc.res); ok {
				t.Fatal("encodeCallResult encoded it; it should leave it to the SDK")
			}
			got, err := marshalResult(tc.res)
			want := sdkEncoded(t, tc.res)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("marshalResult wrote %s (error %v), want %s", got, err, want)
			}
		})
	}
}

// TestResultWireFields checks that resultWire and textWire cover every
// exported field of the SDK's CallToolResult and TextContent: a field a
// newer SDK adds must be added to them too, or it would be dropped.
func TestResultWireFields(t *testing.T) {
	for _, tc := range []struct {
		sdk  reflect.Type
		want []string
	}{
		{reflect.TypeFor[mcp.CallToolResult](), []string{"Content", "InputRequests", "IsError", "Meta", "RequestState", "StructuredContent"}},
		{reflect.TypeFor[mcp.TextContent](), []string{"Annotations", "Meta", "Text"}},
	} {
		var got []string
		for f := range tc.sdk.Fields() {
			if f.IsExported() {
				got = append(got, f.Name)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("mcp.%s has the exported fields %v; resultWire and textWire were written for %v: update them (and this test) to the SDK's wire form", tc.sdk.Name(), got, tc.want)
		}
	}
}
