package host

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"

	thcl "github.com/toolhost/toolhost/hcl"
)

// The Mcp-Param-* headers of a tools/call (MCP 2026-07-28, SEP-2243): a
// tool whose param declares header = "Region" (x-mcp-header in its
// inputSchema) has clients send that argument again as the header
// Mcp-Param-Region, for gateways that route on it without reading the
// body. A gateway and toolhost then act on the same request only if the
// two agree, so paramHeadersProblem checks them before the SDK sees the
// POST, and a disagreement is refused with 400 and HeaderMismatch
// (-32020), with a message naming the argument and the header.
//
// The SDK checks the same for requests of 2026-07-28, after this check;
// this one comes first for messages that say what to fix, and for what
// the SDK lets through: a header value with characters a header may not
// hold (a raw non-ASCII byte, a control character), a header sent twice
// (a gateway may route on either one), base64 with bad padding bits, and
// a header sent by a client of an older protocol, which must match too
// when it is there (such a client need not send it).

// base64Prefix and base64Suffix wrap a header value sent base64-encoded:
// "=?base64?SGVsbG8=?=" is "Hello". A value without both is taken as it
// is.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
	// base64Alphabet is standard base64's, with its padding.
	base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
)

// maxSafeInteger is the largest integer a header mirrors exactly: the SEP
// keeps mirrored integers within what a JavaScript number holds.
const maxSafeInteger = 1<<53 - 1

// maxNumberText bounds the text of a number compared exactly (an argument
// or a header): longer ones, and exponents of more than four digits, are
// not integers a header mirrors, and are not worked out.
const maxNumberText = 1000

// paramHeadersProblem checks the Mcp-Param-* headers of POST r, whose
// body is the one call m, against the call's arguments. It returns why
// they disagree, or "". body is the POST's body, for its protocol
// version: from 2026-07-28 on an argument with a value must have its
// header; before, a header that is there must match.
func (h *HTTPServer) paramHeadersProblem(r *http.Request, body []byte, m *peekedMessage) string {
	if m.Method != "tools/call" {
		return ""
	}
	// The name first: the arguments are decoded only for a tool that
	// mirrors some.
	var p struct {
		Name      string                `json:"name"`
		Arguments map[string]rawMessage `json:"arguments"`
	}
	if _, err := sjson.Parse(m.Params, &struct {
		Name *string `json:"name"`
	}{&p.Name}, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return "" // paramsProblem or the SDK says what is wrong
	}
	reg := h.srv.Registry()
	if reg == nil {
		return ""
	}
	tool := reg.tools[p.Name]
	if tool == nil || len(tool.Headers) == 0 {
		return ""
	}
	if _, err := sjson.Parse(m.Params, &p, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return ""
	}
	required := newProtocolPOST(r, body)
	for _, ph := range tool.Headers {
		if msg := checkParamHeader(r.Header, ph, p.Arguments, required); msg != "" {
			return fmt.Sprintf("header mismatch in the call of %q: %s", shortURI(p.Name), msg)
		}
	}
	return ""
}

// standardHeaders are the headers of SEP-2243 that name a request's
// method and its tool, prompt or resource, which a gateway may route on.
var standardHeaders = []string{"Mcp-Method", "Mcp-Name"}

// standardHeadersProblem says which of the standard headers POST r sends
// more than once, or "". The SDK compares only the first copy with the
// body, and a gateway may route on another one.
func standardHeadersProblem(r *http.Request) string {
	for _, name := range standardHeaders {
		if n := len(r.Header.Values(name)); n > 1 {
			return fmt.Sprintf("header mismatch: %s is sent %d times; send it once, with the value the request's body has, as a gateway may route on any copy.", name, n)
		}
	}
	return ""
}

// rawMessage is a JSON value kept as its text.
type rawMessage = sjson.RawMessage

// checkParamHeader checks the header of one mirrored argument, ph, against
// args. required says that an argument with a value must have its header.
func checkParamHeader(hdr http.Header, ph thcl.ParamHeader, args map[string]rawMessage, required bool) string {
	name := ph.Header()
	vals := hdr.Values(name)
	arg, given := argumentAt(args, ph.Path)
	switch {
	case len(vals) > 1:
		return fmt.Sprintf("%s is sent %d times; send it once, with the value of the argument %q.", name, len(vals), ph.Arg())
	case !given && len(vals) == 1:
		return fmt.Sprintf("%s is sent, but the argument %q has no value (it is absent or null); send %s only with a value of %q, as gateways route on the header.", name, ph.Arg(), name, ph.Arg())
	case !given || (len(vals) == 0 && !required):
		return ""
	}
	want, msg := mirroredValue(arg)
	if msg != "" {
		return fmt.Sprintf("the argument %q %s, which %s cannot mirror: send a string, a boolean, or an integer from -%d to %d.", ph.Arg(), msg, name, maxSafeInteger, maxSafeInteger)
	}
	if len(vals) == 0 {
		return fmt.Sprintf("%s is missing, and the argument %q has a value: the tool mirrors %q into %s (x-mcp-header in its inputSchema), so that gateways can route on it. Send %s with the argument's value (base64-encoded as =?base64?...?= when it is not printable ASCII, or has spaces at either end).", name, ph.Arg(), ph.Arg(), name, name)
	}
	got, msg := decodeParamHeader(vals[0])
	if msg != "" {
		return fmt.Sprintf("%s %s", name, msg)
	}
	if !sameValue(got, want, arg[0] != '"') {
		return fmt.Sprintf("%s is %q, but the argument %q is %s; send the header with the argument's value, as gateways route on the header.", name, shortURI(got), ph.Arg(), shortURI(string(arg)))
	}
	if got == "" {
		// The SDK checks after this, and takes an empty header for a
		// missing one: the empty string, base64-encoded, is the same
		// value, which it takes.
		hdr.Set(name, base64Prefix+base64Suffix)
	}
	return ""
}

// argumentAt is the value at path in args, and false when it is absent or
// null (the SEP has a client send no header then).
func argumentAt(args map[string]rawMessage, path []string) (rawMessage, bool) {
	v, ok := args[path[0]]
	for _, step := range path[1:] {
		if !ok {
			break
		}
		var obj map[string]rawMessage
		if _, err := sjson.Parse(v, &obj, sjson.DontMatchCaseInsensitiveStructFields); err != nil || obj == nil {
			return nil, false
		}
		v, ok = obj[step]
	}
	if !ok || string(v) == "null" {
		return nil, false
	}
	return v, true
}

// decodeParamHeader decodes a header value (net/http has trimmed the
// spaces and tabs at its ends): one of printable ASCII, spaces and tabs,
// base64-decoded when it is wrapped in =?base64? and ?=. It returns what
// is wrong with the value, to follow the header's name, or "".
func decodeParamHeader(v string) (string, string) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", fmt.Sprintf("has the byte 0x%02X, which a header value may not hold: send a value that is not printable ASCII base64-encoded, as =?base64?...?= (the UTF-8 bytes, in standard base64 with = padding).", c)
		}
	}
	if len(v) < len(base64Prefix)+len(base64Suffix) || !strings.HasPrefix(v, base64Prefix) || !strings.HasSuffix(v, base64Suffix) {
		return v, ""
	}
	enc := v[len(base64Prefix) : len(v)-len(base64Suffix)]
	dec, err := base64.StdEncoding.Strict().DecodeString(enc)
	if err != nil {
		why := "its = padding or its last character is not where or what standard base64 has"
		if i := strings.IndexFunc(enc, func(c rune) bool { return !strings.ContainsRune(base64Alphabet, c) }); i >= 0 {
			why = fmt.Sprintf("it has %q, which is not in standard base64's alphabet (A-Z, a-z, 0-9, + and /, and = to pad)", enc[i:i+1])
		} else if len(enc)%4 != 0 {
			why = fmt.Sprintf("its length, %d, is not a multiple of 4 (= padding is missing or extra)", len(enc))
		}
		return "", fmt.Sprintf("is wrapped in =?base64? and ?=, but %q is not base64: %s. Encode the UTF-8 bytes of the value in standard base64, with = padding, as =?base64?SGVsbG8=?= for Hello.", shortURI(enc), why)
	}
	return string(dec), ""
}

// mirroredValue is the text a header mirrors argument arg as: a string
// as it is, a boolean as true or false, an integer in decimal. It returns
// what arg is otherwise (an object, a number beyond the safe integers), to
// follow the argument's name.
func mirroredValue(arg rawMessage) (string, string) {
	switch arg[0] {
	case '"':
		var s string
		if _, err := sjson.Parse(arg, &s, 0); err != nil {
			return "", "is not a valid JSON string"
		}
		return s, ""
	case 't', 'f':
		return string(arg), ""
	case '{', '[':
		return "", "is an object or a list"
	}
	n, ok := parseNumber(string(arg))
	if !ok || !n.IsInt() || new(big.Int).Abs(n.Num()).Cmp(big.NewInt(maxSafeInteger)) > 0 {
		return "", "is " + shortURI(string(arg))
	}
	return n.Num().String(), ""
}

// sameValue reports whether the decoded header value got is the mirrored
// argument want; numbers compare by value (42.0 is 42), as the SEP asks.
func sameValue(got, want string, number bool) bool {
	if got == want {
		return true
	}
	if !number || want == "true" || want == "false" {
		return false
	}
	g, ok := parseNumber(got)
	w, _ := new(big.Rat).SetString(want)
	return ok && w != nil && g.Cmp(w) == 0
}

// parseNumber parses a decimal number as JSON writes one (a leading + is
// taken too), exactly. It reports false for other text, and for numbers
// longer than maxNumberText or with an exponent of more than four digits,
// which would take long to work out.
func parseNumber(s string) (*big.Rat, bool) {
	if len(s) == 0 || len(s) > maxNumberText {
		return nil, false
	}
	i := 0
	if s[0] == '-' || s[0] == '+' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if digits() == 0 {
		return nil, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return nil, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if n := digits(); n == 0 || n > 4 {
			return nil, false
		}
	}
	if i != len(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// refuseHeaders answers a call whose Mcp-Param-* headers disagree with
// its arguments (see paramHeadersProblem): 400 with HeaderMismatch, as
// the SEP wants.
func refuseHeaders(w http.ResponseWriter, r *http.Request, id any, msg string) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = "header mismatch"
	}
	writeRPCError(w, http.StatusBadRequest, id, mcp.CodeHeaderMismatch, msg)
}
