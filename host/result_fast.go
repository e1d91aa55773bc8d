package host

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	thcl "github.com/toolhost/toolhost/hcl"
)

// convertFast is ConvertJSON for a value that already has the declared
// shape, which is what a result mapping usually meets: strings where
// strings are declared, numbers where numbers are, objects with the
// declared attributes (extra ones are dropped, as conversion drops them).
// It writes what the general path (cty conversion and EncodeJSON) writes,
// byte for byte, at a fraction of the cost (BENCHMARKS.md, "What was
// changed for speed"); it reports false for anything else — a conversion
// to make, a null, an escape in a string, a map, set or tuple type,
// invalid JSON — and the general path then does the work and words the
// errors. host/perf_test.go checks the two agree.
func convertFast(t *thcl.Type, raw []byte) (json.RawMessage, bool) {
	return appendFast(make([]byte, 0, len(raw)), t, raw)
}

// appendFast is convertFast appending to out, which it returns as it was
// when it reports false. What it appends is compact JSON.
func appendFast(out []byte, t *thcl.Type, raw []byte) ([]byte, bool) {
	c := fastConv{src: raw}
	res, ok := c.value(out, t)
	if !ok {
		return out, false
	}
	c.space()
	if c.i != len(c.src) {
		return out, false
	}
	return res, true
}

// fastConv reads JSON strictly (it does not trust its input).
type fastConv struct {
	src []byte
	i   int
}

func (c *fastConv) space() {
	for c.i < len(c.src) {
		switch c.src[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *fastConv) peek() byte {
	c.space()
	if c.i >= len(c.src) {
		return 0
	}
	return c.src[c.i]
}

// value converts the value at c.i to t and appends it.
func (c *fastConv) value(out []byte, t *thcl.Type) ([]byte, bool) {
	switch t.Kind {
	case thcl.KindString:
		if c.peek() != '"' {
			return nil, false
		}
		raw, escaped, ok := c.rawStr()
		if !ok {
			return nil, false
		}
		if escaped {
			var s string
			if json.Unmarshal(raw, &s) != nil || !norm.NFC.IsNormalString(s) {
				return nil, false
			}
			q, err := json.Marshal(s) // control characters and all, as EncodeJSON
			return append(out, q...), err == nil
		}
		return appendJSONString(out, raw), true
	case thcl.KindNumber, thcl.KindInteger:
		num, ok := c.number()
		if !ok {
			return nil, false
		}
		if n, ok := smallInt(num); ok {
			return strconv.AppendInt(out, n, 10), true
		}
		bf, _, err := big.ParseFloat(string(num), 10, 512, big.ToNearestEven)
		if err != nil {
			return nil, false
		}
		if !inFloat64Range(bf) || t.Kind == thcl.KindInteger && !bf.IsInt() {
			return nil, false // the general path says why
		}
		return thcl.AppendNumber(out, bf), true
	case thcl.KindBool:
		switch {
		case c.literal("true"):
			return append(out, "true"...), true
		case c.literal("false"):
			return append(out, "false"...), true
		}
		return nil, false
	case thcl.KindList:
		if c.peek() != '[' {
			return nil, false
		}
		c.i++
		out = append(out, '[')
		if c.peek() == ']' {
			c.i++
			return append(out, ']'), true
		}
		for n := 0; ; n++ {
			if n > 0 {
				out = append(out, ',')
			}
			var ok bool
			if out, ok = c.value(out, t.Elem); !ok {
				return nil, false
			}
			switch c.peek() {
			case ',':
				c.i++
			case ']':
				c.i++
				return append(out, ']'), true
			default:
				return nil, false
			}
		}
	case thcl.KindObject:
		return c.object(out, t)
	}
	return nil, false // map, set, tuple, any: the general path
}

// object converts a JSON object to an object type: declared attributes in
// declaration order, optional ones left out when absent or null, others
// dropped.
func (c *fastConv) object(out []byte, t *thcl.Type) ([]byte, bool) {
	if c.peek() != '{' {
		return nil, false
	}
	c.i++
	type span struct{ start, end int }
	var found map[string]span
	var seen []string
	if c.peek() == '}' {
		c.i++
	} else {
		for {
			if c.peek() != '"' {
				return nil, false
			}
			k, ok := c.plainString()
			if !ok || slices.Contains(seen, k) {
				return nil, false // an escaped key, or a duplicate, which cty refuses
			}
			seen = append(seen, k)
			if c.peek() != ':' {
				return nil, false
			}
			c.i++
			c.space()
			start := c.i
			if !c.skip() {
				return nil, false
			}
			if _, declared := t.Attrs[k]; declared {
				if found == nil {
					found = make(map[string]span, len(t.Attrs))
				}
				found[k] = span{start, c.i}
			}
			switch c.peek() {
			case ',':
				c.i++
				continue
			case '}':
				c.i++
			default:
				return nil, false
			}
			break
		}
	}
	end := c.i
	out = append(out, '{')
	first := true
	for _, name := range t.AttrOrder {
		sp, ok := found[name]
		if !ok || bytes.Equal(c.src[sp.start:sp.end], []byte("null")) {
			if t.Optional[name] {
				continue
			}
			return nil, false // missing or null: the general path says so
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = appendJSONString(out, name)
		out = append(out, ':')
		sub := fastConv{src: c.src[:sp.end], i: sp.start}
		if out, ok = sub.value(out, t.Attrs[name]); !ok {
			return nil, false
		}
	}
	c.i = end
	return append(out, '}'), true
}

// skip moves past one JSON value, checking it as strictly as the general
// path's decoder would, and refusing what cty would refuse (duplicate
// attributes) or what the fast path cannot compare (escaped keys).
func (c *fastConv) skip() bool {
	switch c.peek() {
	case '{':
		c.i++
		if c.peek() == '}' {
			c.i++
			return true
		}
		var seen []string
		for {
			if c.peek() != '"' {
				return false
			}
			k, ok := c.plainString()
			if !ok || slices.Contains(seen, k) {
				return false
			}
			seen = append(seen, k)
			if c.peek() != ':' {
				return false
			}
			c.i++
			if !c.skip() {
				return false
			}
			switch c.peek() {
			case ',':
				c.i++
			case '}':
				c.i++
				return true
			default:
				return false
			}
		}
	case '[':
		c.i++
		if c.peek() == ']' {
			c.i++
			return true
		}
		for {
			if !c.skip() {
				return false
			}
			switch c.peek() {
			case ',':
				c.i++
			case ']':
				c.i++
				return true
			default:
				return false
			}
		}
	case '"':
		return c.anyString()
	case 't':
		return c.literal("true")
	case 'f':
		return c.literal("false")
	case 'n':
		return c.literal("null")
	}
	_, ok := c.number()
	return ok
}

func (c *fastConv) literal(word string) bool {
	if c.peek() != word[0] || !bytes.HasPrefix(c.src[c.i:], []byte(word)) {
		return false
	}
	c.i += len(word)
	return true
}

// str reads a string that is valid UTF-8 in NFC (cty's normal form, which
// cty.StringVal would otherwise impose). escaped reports whether it had
// escapes, decoded as encoding/json decodes them.
func (c *fastConv) str() (s string, escaped, ok bool) {
	raw, escaped, ok := c.rawStr()
	switch {
	case !ok:
		return "", false, false
	case escaped:
		if json.Unmarshal(raw, &s) != nil || !norm.NFC.IsNormalString(s) {
			return "", false, false
		}
		return s, true, true
	}
	return string(raw), false, true
}

// rawStr moves past a string. Without escapes (escaped false), raw is
// its content, checked as str checks it (valid UTF-8 in NFC; ASCII is
// both); with escapes, raw is the quoted string, unchecked, for the
// caller to decode. Without escapes, nothing is allocated.
func (c *fastConv) rawStr() (raw []byte, escaped, ok bool) {
	start := c.i + 1
	ascii := true
	for j := start; j < len(c.src); j++ {
		switch b := c.src[j]; {
		case b == '"':
			if escaped {
				raw = c.src[c.i : j+1]
			} else {
				raw = c.src[start:j]
				if !ascii && (!utf8.Valid(raw) || !norm.NFC.IsNormal(raw)) {
					return nil, false, false
				}
			}
			c.i = j + 1
			return raw, escaped, true
		case b == '\\':
			escaped = true
			j++ // the escaped character is not the end
		case b < 0x20:
			return nil, false, false
		case b >= 0x80:
			ascii = false
		}
	}
	return nil, false, false
}

// plainString is str for keys and values that are written back with
// appendJSONString.
func (c *fastConv) plainString() (string, bool) {
	s, _, ok := c.str()
	return s, ok
}

// anyString moves past a string in a value that is dropped: escapes are
// checked, not decoded.
func (c *fastConv) anyString() bool {
	for j := c.i + 1; j < len(c.src); j++ {
		switch b := c.src[j]; {
		case b == '"':
			c.i = j + 1
			return true
		case b < 0x20:
			return false
		case b == '\\':
			if j+1 >= len(c.src) {
				return false
			}
			switch c.src[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if j+5 >= len(c.src) {
					return false
				}
				for _, h := range c.src[j+2 : j+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				j += 5
			default:
				return false
			}
		}
	}
	return false
}

// number reads a number in JSON's grammar.
func (c *fastConv) number() ([]byte, bool) {
	c.space()
	s, i := c.src, c.i
	digits := func() bool {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	num := s[c.i:i]
	c.i = i
	return num, true
}

// smallInt parses a JSON number made of at most 18 digits (and a sign).
func smallInt(num []byte) (int64, bool) {
	digits := num
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	if num[0] == '-' {
		n = -n
	}
	return n, true
}

// appendJSONString appends s quoted as encoding/json quotes it (with HTML
// escaping), for a string with no control characters and valid UTF-8: an
// attribute name, or a string that had no escapes in valid JSON (as the
// bytes it had there).
func appendJSONString[S string | []byte](out []byte, s S) []byte {
	extra, _, ok := jsonExtra(s)
	if !ok {
		// Not what callers give, but never written unescaped.
		return appendMarshaled(out, string(s))
	}
	return appendQuoted(out, s, extra)
}

// Classes of bytes in a JSON string, for jsonExtra and appendQuoted. The
// classes appendQuoted may write otherwise than as they are have the
// jsonEscaped bit.
const (
	jsonPlain     = 0               // written as it is
	jsonControl   = 1               // below 0x20: only json.Marshal writes these
	jsonHigh      = 2               // another byte of a multi-byte UTF-8 sequence
	jsonEscaped   = 4               // the bit of the classes below
	jsonBackslash = jsonEscaped | 0 // '"' and '\\': a backslash before it
	jsonHTML      = jsonEscaped | 1 // '<', '>' and '&': \u00XX
	jsonE2        = jsonEscaped | 2 // 0xE2, which starts U+2028 and U+2029 (\u2028, \u2029)
)

// jsonClass is the class of each byte.
var jsonClass = func() (t [256]uint8) {
	for b := range 0x20 {
		t[b] = jsonControl
	}
	for b := 0x80; b < 0x100; b++ {
		t[b] = jsonHigh
	}
	t['"'], t['\\'] = jsonBackslash, jsonBackslash
	t['<'], t['>'], t['&'] = jsonHTML, jsonHTML, jsonHTML
	t[0xE2] = jsonE2
	return t
}()

// isLineSep reports whether s[i:] starts with U+2028 or U+2029.
func isLineSep[S string | []byte](s S, i int) bool {
	return i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9)
}

// jsonExtra returns how many bytes quoting s adds to it (its quotes not
// counted), whether s is all ASCII, and whether it has no control
// character (which stops the count).
func jsonExtra[S string | []byte](s S) (extra int, ascii, ok bool) {
	ascii = true
	for i := 0; i < len(s); i++ {
		c := jsonClass[s[i]]
		if c == jsonPlain {
			continue
		}
		switch c {
		case jsonBackslash:
			extra++
		case jsonHTML:
			extra += 5
		case jsonE2:
			ascii = false
			if isLineSep(s, i) {
				extra += 3
			}
		case jsonControl:
			return 0, false, false
		case jsonHigh:
			ascii = false
		}
	}
	return extra, ascii, true
}

// appendQuoted appends s quoted, given extra from jsonExtra: the output is
// sized once and written in place.
func appendQuoted[S string | []byte](out []byte, s S, extra int) []byte {
	n := len(out)
	size := len(s) + extra + 2
	out = slices.Grow(out, size)[:n+size]
	w := out[n:]
	w[0], w[size-1] = '"', '"'
	if extra == 0 {
		copy(w[1:], s)
		return out
	}
	const hex = "0123456789abcdef"
	k := 1
	for i := 0; i < len(s); i++ {
		b := s[i]
		c := jsonClass[b]
		if c&jsonEscaped == 0 {
			w[k] = b
			k++
			continue
		}
		switch c {
		case jsonBackslash:
			w[k], w[k+1] = '\\', b
			k += 2
		case jsonHTML:
			copy(w[k:k+4], `\u00`)
			w[k+4], w[k+5] = hex[b>>4], hex[b&0xF]
			k += 6
		default: // jsonE2
			if !isLineSep(s, i) {
				w[k] = b
				k++
				continue
			}
			copy(w[k:k+5], `\u202`)
			w[k+5] = "89"[s[i+2]-0xA8]
			k += 6
			i += 2
		}
	}
	return out
}
