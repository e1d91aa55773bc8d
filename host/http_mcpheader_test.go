package host

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headersConfig has a tool whose params are mirrored into Mcp-Param-*
// headers.
const headersConfig = `
tool "route" {
  param "region" {
    type   = string
    header = "Region"
  }
  param "n" {
    type     = integer
    header   = "N"
    required = false
  }
  param "on" {
    type     = bool
    header   = "On"
    required = false
  }
  param "note" {
    type     = string
    header   = "Note"
    required = false
  }
  template {
    text = "region=${param.region}"
  }
}

tool "nested" {
  input_schema = {
    type = "object"
    properties = {
      target = {
        type       = "object"
        properties = { zone = { type = "string", "x-mcp-header" = "Zone" } }
      }
    }
  }
  template {
    text = "zone=${param.target.zone}"
  }
}
`

// postCall posts a tools/call of tool with arguments args (JSON) and
// headers hdr (each value a header line of its own) and returns the status
// and the body.
func postCall(t *testing.T, e *httpEnv, tool, args string, hdr http.Header) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if hdr.Get("Mcp-Session-Id") != "" {
		body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	req, err := http.NewRequest(http.MethodPost, e.base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = hdr.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// newProtocolHeaders are the headers of a 2026-07-28 call of route, with
// the Mcp-Param-* headers of params (name, then value, in pairs).
func newProtocolHeaders(params ...string) http.Header {
	h := http.Header{}
	h.Set("Mcp-Protocol-Version", "2026-07-28")
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", "route")
	for i := 0; i+1 < len(params); i += 2 {
		h[params[i]] = append(h[params[i]], params[i+1])
	}
	return h
}

// checkHeaderAnswer checks an answer to postCall: a result when want is
// empty, else 400 with HeaderMismatch and a message with each of want.
func checkHeaderAnswer(t *testing.T, status int, body string, want []string) {
	t.Helper()
	if len(want) == 0 {
		if status != http.StatusOK || !strings.Contains(body, `"result"`) || !strings.Contains(body, `"text":"`) || strings.Contains(body, `"error"`) || strings.Contains(body, `"isError":true`) {
			t.Fatalf("got %d %s, want a result", status, body)
		}
		return
	}
	var msg struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		ID any `json:"id"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil || status != http.StatusBadRequest || msg.Error.Code != -32020 || msg.ID != float64(7) {
		t.Fatalf("got %d %s, want 400 with error -32020 for id 7", status, body)
	}
	for _, w := range want {
		if !strings.Contains(msg.Error.Message, w) {
			t.Errorf("message %q does not say %q", msg.Error.Message, w)
		}
	}
}

func b64(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }

// TestHTTPParamHeaders: a 2026-07-28 call (stateless) whose Mcp-Param-*
// headers agree with its arguments runs; one whose headers disagree, or
// lack one for an argument with a value, is refused with 400 and -32020,
// naming the argument and the header.
func TestHTTPParamHeaders(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, headersConfig)
	for _, tc := range []struct {
		name string
		args string
		hdr  http.Header
		want []string // in the refusal; none for a result
	}{
		{"plain", `{"region":"us-west1"}`, newProtocolHeaders("Mcp-Param-Region", "us-west1"), nil},
		{"name in lower case", `{"region":"us-west1"}`, newProtocolHeaders("mcp-param-region", "us-west1"), nil},
		{"spaces inside", `{"region":"us west 1"}`, newProtocolHeaders("Mcp-Param-Region", "us west 1"), nil},
		{"mismatch", `{"region":"us-west1"}`, newProtocolHeaders("Mcp-Param-Region", "eu-west1"),
			[]string{`Mcp-Param-Region is "eu-west1", but the argument "region" is "us-west1"`, `call of "route"`}},
		{"case of the value", `{"region":"us-west1"}`, newProtocolHeaders("Mcp-Param-Region", "US-WEST1"), []string{"Mcp-Param-Region", `"region"`}},
		{"missing", `{"region":"us-west1"}`, newProtocolHeaders(), []string{`Mcp-Param-Region is missing, and the argument "region" has a value`, "base64"}},
		{"non-ASCII, base64", `{"region":"Zürich 北京"}`, newProtocolHeaders("Mcp-Param-Region", b64("Zürich 北京")), nil},
		{"spaces at the ends, base64", `{"region":" padded "}`, newProtocolHeaders("Mcp-Param-Region", b64(" padded ")), nil},
		{"line break, base64", `{"region":"a\nb"}`, newProtocolHeaders("Mcp-Param-Region", b64("a\nb")), nil},
		{"base64 of another value", `{"region":"Zürich"}`, newProtocolHeaders("Mcp-Param-Region", b64("Zurich")), []string{`Mcp-Param-Region is "Zurich", but the argument "region" is "Zürich"`}},
		{"non-ASCII, raw", `{"region":"Zürich"}`, newProtocolHeaders("Mcp-Param-Region", "Zürich"), []string{"Mcp-Param-Region has the byte 0xC3", "=?base64?"}},
		{"bad padding", `{"region":"Hello"}`, newProtocolHeaders("Mcp-Param-Region", "=?base64?SGVsbG8?="), []string{`"SGVsbG8" is not base64: its length, 7, is not a multiple of 4`}},
		{"bad characters", `{"region":"Hello"}`, newProtocolHeaders("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), []string{`"SGVs!!!bG8=" is not base64: it has "!", which is not in standard base64's alphabet`}},
		{"no suffix: literal", `{"region":"=?base64?SGVsbG8="}`, newProtocolHeaders("Mcp-Param-Region", "=?base64?SGVsbG8="), nil},
		{"sentinel pattern, base64", `{"region":"=?base64?x?="}`, newProtocolHeaders("Mcp-Param-Region", b64("=?base64?x?=")), nil},
		{"bad last character", `{"region":"Hello"}`, newProtocolHeaders("Mcp-Param-Region", "=?base64?SGVsbG9=?="), []string{"its = padding or its last character"}},
		{"sent twice", `{"region":"us"}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-Region", "us"), []string{"Mcp-Param-Region is sent 2 times"}},
		{"Mcp-Name sent twice", `{"region":"us"}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Name", "other"), []string{"Mcp-Name is sent 2 times"}},
		{"Mcp-Method sent twice", `{"region":"us"}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Method", "tools/list"), []string{"Mcp-Method is sent 2 times"}},
		{"null argument, no header", `{"region":"us","note":null}`, newProtocolHeaders("Mcp-Param-Region", "us"), nil},
		{"null argument with a header", `{"region":"us","note":null}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-Note", "x"),
			[]string{`Mcp-Param-Note is sent, but the argument "note" has no value`}},
		{"absent argument with a header", `{"region":"us"}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-N", "1"), []string{`the argument "n" has no value`}},
		{"empty string", `{"region":"us","note":""}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-Note", ""), nil},
		{"integer", `{"region":"us","n":42}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-N", "42"), nil},
		{"integer by value", `{"region":"us","n":42}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-N", "42.0"), nil},
		{"integer with an exponent", `{"region":"us","n":-420}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-N", "-4.2e2"), nil},
		{"other integer", `{"region":"us","n":42}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-N", "43"), []string{`Mcp-Param-N is "43", but the argument "n" is 42`}},
		{"not a number", `{"region":"us","n":42}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-N", "0x2A"), []string{`Mcp-Param-N is "0x2A"`}},
		{"huge exponent", `{"region":"us","n":0}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-N", "0e99999999"), []string{`Mcp-Param-N is "0e99999999"`}},
		{"beyond the safe integers", `{"region":"us","n":9007199254740993}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-N", "9007199254740993"),
			[]string{`the argument "n" is 9007199254740993, which Mcp-Param-N cannot mirror`}},
		{"boolean", `{"region":"us","on":true}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-On", "true"), nil},
		{"boolean in capitals", `{"region":"us","on":false}`, newProtocolHeaders("Mcp-Param-Region", "us", "Mcp-Param-On", "False"), []string{`Mcp-Param-On is "False", but the argument "on" is false`}},
		{"object for a string", `{"region":{"a":1}}`, newProtocolHeaders("Mcp-Param-Region", "x"), []string{`the argument "region" is an object or a list, which Mcp-Param-Region cannot mirror`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := postCall(t, e, "route", tc.args, tc.hdr)
			checkHeaderAnswer(t, status, body, tc.want)
		})
	}
}

// TestHTTPParamHeadersNested: an input_schema's x-mcp-header on a nested
// property mirrors the argument at its path.
func TestHTTPParamHeadersNested(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, headersConfig)
	hdr := func(zone string) http.Header {
		h := newProtocolHeaders("Mcp-Param-Zone", zone)
		h.Set("Mcp-Name", "nested")
		return h
	}
	status, body := postCall(t, e, "nested", `{"target":{"zone":"b"}}`, hdr("b"))
	checkHeaderAnswer(t, status, body, nil)
	status, body = postCall(t, e, "nested", `{"target":{"zone":"b"}}`, hdr("c"))
	checkHeaderAnswer(t, status, body, []string{`Mcp-Param-Zone is "c", but the argument "target.zone" is "b"`})
}

// TestHTTPParamHeadersOlderProtocol: a client of a protocol before
// 2026-07-28, in a session, need not send the Mcp-Param-* headers, but one
// it sends must match the argument.
func TestHTTPParamHeadersOlderProtocol(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{}, headersConfig)
	sess := http.Header{}
	for k, v := range rawSession(t, e, "2025-06-18") {
		sess.Set(k, v)
	}
	with := func(k, v string) http.Header {
		h := sess.Clone()
		h.Set(k, v)
		return h
	}
	for _, tc := range []struct {
		name string
		hdr  http.Header
		want []string
	}{
		{"no header", sess, nil},
		{"matching header", with("Mcp-Param-Region", "us"), nil},
		{"mismatching header", with("Mcp-Param-Region", "eu"), []string{`Mcp-Param-Region is "eu", but the argument "region" is "us"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := postCall(t, e, "route", `{"region":"us"}`, tc.hdr)
			checkHeaderAnswer(t, status, body, tc.want)
		})
	}
}

// TestToolsListParamHeaders: tools/list shows a mirrored param's header as
// x-mcp-header in the tool's inputSchema, and an unmirrored one without.
func TestToolsListParamHeaders(t *testing.T) {
	e := startHTTPConfig(t, HTTPOptions{Stateless: true}, headersConfig)
	cs := e.connect(nil, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var route *mcp.Tool
	for _, tool := range res.Tools {
		if tool.Name == "route" {
			route = tool
		}
	}
	if route == nil {
		t.Fatal("tools/list has no tool route")
	}
	b, _ := json.Marshal(route.InputSchema)
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	for prop, want := range map[string]string{"region": "Region", "n": "N", "on": "On", "note": "Note"} {
		if got := schema.Properties[prop]["x-mcp-header"]; got != want {
			t.Errorf("%s: x-mcp-header = %v, want %q (schema %s)", prop, got, want, b)
		}
	}
}
