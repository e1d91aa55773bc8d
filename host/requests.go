package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"
	"github.com/tidwall/gjson"

	"github.com/toolhost/toolhost/internal/jsondepth"
	"github.com/toolhost/toolhost/internal/suggest"
)

// logLevels are the levels of logging/setLevel, lowest first (RFC 5424's
// severities, as the spec names them).
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// maxNamesListed is how many declared names an unknown-name error lists.
const maxNamesListed = 20

// checkRequest refuses the requests whose mistakes the SDK would answer
// without saying how to fix them: a log level that is none of the spec's
// (the SDK takes any string, and the client then gets no logs at all), and
// a tool or prompt that is not declared (the error names the close one and
// those that are), a resource URI longer than maxResourceURI, and a
// subscriptions/listen stream that would hold too much (checkListen). It
// returns nil for the others. The names it lists are those v sees.
func (s *Server) checkRequest(method string, req mcp.Request, v view) error {
	switch method {
	case "logging/setLevel":
		if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil && !slices.Contains(logLevels, p.Level) {
			levels := make([]string, len(logLevels))
			for i, l := range logLevels {
				levels[i] = string(l)
			}
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("invalid log level %q: use one of %s", p.Level, strings.Join(levels, ", "))}
		}
	case "prompts/get":
		if p, ok := req.GetParams().(*mcp.GetPromptParams); ok && p != nil {
			if reg := s.Registry(); reg != nil && reg.prompts[p.Name] == nil {
				return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: unknownName("prompt", p.Name, v.seenNames(reg, "prompt")) + reg.placeholderHint()}
			}
		}
	case "subscriptions/listen":
		return checkListen(req)
	case "resources/read", "resources/subscribe", "resources/unsubscribe", "completion/complete":
		if uri, param := requestURI(req.GetParams()); len(uri) > maxResourceURI {
			return uriTooLong(method, param, uri)
		}
	case "tools/call":
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
			if reg := s.Registry(); reg != nil && reg.tools[p.Name] == nil {
				return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: unknownName("tool", p.Name, v.seenNames(reg, "tool")) + reg.placeholderHint()}
			}
		}
	}
	return nil
}

// checkListen refuses a subscriptions/listen request that would hold more
// than a stream may: one from a session of an earlier protocol (the SDK
// would keep its stream and subscriptions until the session ends, whether
// the client still reads it or not), or one that lists more than
// maxListenURIs resource URIs, more than maxListenURIBytes of them, or one
// longer than maxResourceURI. It leaves the request's URIs without their
// duplicates, so that the stream holds, and its acknowledgement echoes,
// each once.
func checkListen(req mcp.Request) error {
	p, ok := req.GetParams().(*mcp.SubscriptionsListenParams)
	if !ok || p == nil {
		return nil // the SDK answers
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion < "2026-07-28" {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("subscriptions/listen is a request of the 2026-07-28 protocol, and this session speaks %s: subscribe with resources/subscribe instead, and read the notifications on the session's stream", ip.ProtocolVersion)}
		}
	}
	if p.Notifications == nil {
		return nil
	}
	const param = "notifications.resourceSubscriptions"
	uris := p.Notifications.ResourceSubscriptions
	if len(uris) > maxListenURIs {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("invalid params of subscriptions/listen: %q lists %d resource URIs, more than the %d toolhost takes in one request (duplicates count); list each URI once, and open another stream for the rest", param, len(uris), maxListenURIs)}
	}
	total := 0
	for _, uri := range uris {
		if len(uri) > maxResourceURI {
			return uriTooLong("subscriptions/listen", param, uri)
		}
		total += len(uri)
	}
	if total > maxListenURIBytes {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("invalid params of subscriptions/listen: the resource URIs of %q add up to %d bytes, more than the %d toolhost takes in one request (duplicates count); list each URI once, and open another stream for the rest", param, total, maxListenURIBytes)}
	}
	if len(uris) < 2 {
		return nil
	}
	seen := make(map[string]struct{}, len(uris))
	kept := make([]string, 0, len(uris))
	for _, uri := range uris {
		if _, dup := seen[uri]; !dup {
			seen[uri] = struct{}{}
			kept = append(kept, uri)
		}
	}
	p.Notifications.ResourceSubscriptions = kept
	return nil
}

// uriTooLong is the error for a request of method whose resource URI, in
// the parameter param, is longer than maxResourceURI.
func uriTooLong(method, param, uri string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("invalid params of %s: %q is %d bytes long, longer than the %d bytes toolhost takes for a resource URI (%q); send the URI of a resource that resources/list gives, or that a template of resources/templates/list makes", method, param, len(uri), maxResourceURI, shortURI(uri)),
		Data:    uriData(uri)}
}

// requestURI is the resource URI in a request's params, and the name of
// the parameter that holds it: uri, or a completion's ref.uri; "" when
// there is none.
func requestURI(p mcp.Params) (uri, param string) {
	switch p := p.(type) {
	case *mcp.ReadResourceParams:
		if p != nil {
			return p.URI, "uri"
		}
	case *mcp.SubscribeParams:
		if p != nil {
			return p.URI, "uri"
		}
	case *mcp.UnsubscribeParams:
		if p != nil {
			return p.URI, "uri"
		}
	case *mcp.CompleteParams:
		if p != nil && p.Ref != nil {
			return p.Ref.URI, "ref.uri"
		}
	}
	return "", ""
}

// shortName is a name or value a client chose, cut for a message as a
// resource URI is (shortURI): a prompt's name of megabytes was quoted
// whole.
func shortName(s string) string { return shortURI(s) }

// unknownName is the message of a request for a kind (tool, prompt) of
// name that is not declared: the closest declared name, if one is close,
// and the declared ones (at most maxNamesListed of them).
func unknownName(kind, name string, declared []string) string {
	msg := fmt.Sprintf("unknown %s %q", kind, shortName(name))
	if name == "" {
		msg = fmt.Sprintf("params.name is missing or empty: give the name of the %s", kind)
	} else if s := suggest.Closest(name, declared); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	switch {
	case len(declared) == 0:
		return msg + fmt.Sprintf("; this server declares no %ss", kind)
	case len(declared) > maxNamesListed:
		return msg + fmt.Sprintf("; the %ss include %s and %d more (%ss/list has them all)", kind, strings.Join(declared[:maxNamesListed], ", "), len(declared)-maxNamesListed, kind)
	}
	return msg + fmt.Sprintf("; the %ss are: %s", kind, strings.Join(declared, ", "))
}

// paramTypes are the params of the requests whose params paramsProblem
// checks, as the SDK decodes them. tools/call is not among them: decoding
// every call twice would cost time, so callParamsProblem scans the top
// level of its params instead.
var paramTypes = map[string]func() any{
	"initialize":               func() any { return new(mcp.InitializeParams) },
	"prompts/get":              func() any { return new(mcp.GetPromptParams) },
	"prompts/list":             func() any { return new(mcp.ListPromptsParams) },
	"tools/list":               func() any { return new(mcp.ListToolsParams) },
	"resources/list":           func() any { return new(mcp.ListResourcesParams) },
	"resources/templates/list": func() any { return new(mcp.ListResourceTemplatesParams) },
	"resources/read":           func() any { return new(mcp.ReadResourceParams) },
	"resources/subscribe":      func() any { return new(mcp.SubscribeParams) },
	"resources/unsubscribe":    func() any { return new(mcp.UnsubscribeParams) },
	"logging/setLevel":         func() any { return new(mcp.SetLoggingLevelParams) },
	"completion/complete":      func() any { return new(mcp.CompleteParams) },
}

// paramsProblem is the message for a request whose params have a value of
// the wrong JSON type (prompts/get with "arguments": {"count": 5}, say),
// naming the parameter and the type it must have; "" when the params
// decode, or fail in a way the SDK words well enough. Without it the
// client gets the SDK's decoder error, which quotes the whole params and
// names Go types.
func paramsProblem(method string, params json.RawMessage) string {
	if method == "tools/call" {
		return callParamsProblem(params)
	}
	newParams, ok := paramTypes[method]
	if !ok || len(params) == 0 || jsondepth.TooDeep(params, maxDepth) {
		return "" // past the SDK's nesting limit, its error says so
	}
	// The SDK's own decoding: segmentio's, with case-sensitive field names.
	_, err := sjson.Parse(params, newParams(), sjson.DontMatchCaseInsensitiveStructFields)
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) {
		return ""
	}
	field := te.Field
	if field == "" {
		return fmt.Sprintf("invalid params of %s: params must be %s, not %s", method, paramKind(te.Type), valueKind(te.Value))
	}
	msg := fmt.Sprintf("invalid params of %s: %q must be %s, not %s", method, field, paramKind(te.Type), valueKind(te.Value))
	if method == "prompts/get" && strings.HasPrefix(field, "arguments.") {
		msg += "; MCP sends every prompt argument as a string"
	}
	return msg
}

// callParamsProblem is paramsProblem for tools/call: one scan of the top
// level of its params finds what the SDK's decoding would refuse (params
// that are not an object, a name that is not a string, _meta that is not
// an object) without decoding them. Its arguments are raw JSON to the SDK,
// and toolhost's own validation names the argument at fault.
func callParamsProblem(params json.RawMessage) string {
	if len(params) == 0 || jsondepth.TooDeep(params, maxDepth) {
		return ""
	}
	// Read in place: ParseBytes would copy params into a string for every
	// call, and nothing read here outlives this function.
	top := gjson.Parse(unsafe.String(unsafe.SliceData(params), len(params)))
	if !top.IsObject() {
		if top.Type == gjson.Null {
			return ""
		}
		return fmt.Sprintf("invalid params of tools/call: params must be an object, not %s", gjsonKind(top))
	}
	msg := ""
	top.ForEach(func(k, v gjson.Result) bool {
		switch {
		case k.Str == "name" && v.Type != gjson.String && v.Type != gjson.Null:
			msg = fmt.Sprintf("invalid params of tools/call: %q must be a string, not %s", "name", gjsonKind(v))
		case k.Str == "_meta" && !v.IsObject() && v.Type != gjson.Null:
			msg = fmt.Sprintf("invalid params of tools/call: %q must be an object, not %s", "_meta", gjsonKind(v))
		}
		return msg == ""
	})
	return msg
}

// gjsonKind names the JSON type of v, as valueKind does.
func gjsonKind(v gjson.Result) string {
	switch {
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "a boolean"
	case v.IsArray():
		return "an array"
	case v.IsObject():
		return "an object"
	}
	return "null"
}

// paramKind names the JSON type that decodes into t.
func paramKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map:
		if t.Elem().Kind() == reflect.String {
			return "an object of strings"
		}
		return "an object"
	case reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

// valueKind names the JSON type of the value a decoder refused. Its Value
// is a word (encoding/json: "number", "string", ...) or the JSON text that
// starts with the value (segmentio).
func valueKind(v string) string {
	if u, err := strconv.Unquote(v); err == nil && strings.HasPrefix(v, `"`) {
		v = u // segmentio quotes the text
	}
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return "something else"
	case v[0] == '"' || v == "string":
		return "a string"
	case v[0] == '{' || v == "object":
		return "an object"
	case v[0] == '[' || v == "array":
		return "an array"
	case strings.HasPrefix(v, "true") || strings.HasPrefix(v, "false") || v == "bool":
		return "a boolean"
	case strings.HasPrefix(v, "null"):
		return "null"
	case v[0] == '-' || (v[0] >= '0' && v[0] <= '9') || strings.HasPrefix(v, "number"):
		return "a number"
	}
	return v
}

// stringMapPaths are, for the requests that have them, the paths in params
// to the maps whose values MCP sends as strings: prompt arguments.
var stringMapPaths = map[string][]string{
	"prompts/get":         {"arguments"},
	"completion/complete": {"context", "arguments"},
}

// withoutNullArguments returns params with the null values of the request's
// string maps (stringMapPaths) left out, and whether it left any out. The
// SDK decodes a null there as "", so that coalesce(arg.count, "10") would
// give "" instead of "10"; a client that sends null means the argument has
// no value, as if it had left it out. Params that are not objects of the
// expected shape come back as they are, for the SDK to answer.
func withoutNullArguments(method string, params json.RawMessage) (json.RawMessage, bool) {
	path, ok := stringMapPaths[method]
	if !ok || !bytes.Contains(params, []byte("null")) || jsondepth.TooDeep(params, maxDepth) {
		return params, false
	}
	return dropNulls(params, path)
}

// dropNulls removes the null members of the object at path in raw.
func dropNulls(raw json.RawMessage, path []string) (json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if _, err := sjson.Parse(raw, &obj, sjson.DontMatchCaseInsensitiveStructFields); err != nil || obj == nil {
		return raw, false
	}
	changed := false
	if len(path) == 0 {
		for k, v := range obj {
			if string(bytes.TrimSpace(v)) == "null" {
				delete(obj, k)
				changed = true
			}
		}
	} else if sub, ok := obj[path[0]]; ok {
		obj[path[0]], changed = dropNulls(sub, path[1:])
	}
	if !changed {
		return raw, false
	}
	return reencode(obj, raw)
}

// withoutNullArgumentsInBody is withoutNullArguments for each request of a
// POST body (one message or a batch, as peekMessages read it into msgs),
// and whether it changed any.
func withoutNullArgumentsInBody(body []byte, msgs []peekedMessage, batch bool) ([]byte, bool) {
	if !slices.ContainsFunc(msgs, func(m peekedMessage) bool { return stringMapPaths[m.Method] != nil }) ||
		!bytes.Contains(body, []byte("null")) {
		return body, false
	}
	if !batch {
		return messageWithoutNullArguments(body)
	}
	var raws []json.RawMessage
	if _, err := sjson.Parse(body, &raws, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return body, false
	}
	changed := false
	for i, m := range raws {
		var c bool
		if raws[i], c = messageWithoutNullArguments(m); c {
			changed = true
		}
	}
	if !changed {
		return body, false
	}
	return reencode(raws, body)
}

// messageWithoutNullArguments is withoutNullArguments for the params of
// one JSON-RPC message.
func messageWithoutNullArguments(raw []byte) ([]byte, bool) {
	var msg map[string]json.RawMessage
	if _, err := sjson.Parse(raw, &msg, sjson.DontMatchCaseInsensitiveStructFields); err != nil || msg == nil {
		return raw, false
	}
	var method string
	if err := json.Unmarshal(msg["method"], &method); err != nil {
		return raw, false
	}
	params, changed := withoutNullArguments(method, msg["params"])
	if !changed {
		return raw, false
	}
	msg["params"] = params
	return reencode(msg, raw)
}

// reencode is v in JSON, for the rewrites above of orig, and true; or orig
// and false when v does not encode or its JSON would be longer. It does not
// escape HTML as json.Marshal does (<, > and & in strings as \u003c and
// the like, six bytes for one): a body rewritten that way could grow past
// the size limit it was sent within. Only keys that are not valid UTF-8
// (each byte becomes \ufffd) or hold U+2028 or U+2029 can still make it
// longer.
func reencode(v any, orig []byte) ([]byte, bool) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil || b.Len()-1 > len(orig) {
		return orig, false
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), true
}
