package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolhost/toolhost/internal/jsondepth"
)

// undecodedCall finds the call_id and method of a call whose payload
// json.Unmarshal refused with err: by the payload's structure
// (lenientCall), or, when err is a syntax error, in the bytes before it,
// as headCall finds them in the first bytes of a payload.
func undecodedCall(payload []byte, err error) (id json.RawMessage, method string, ok bool) {
	if id, method, ok = lenientCall(payload); ok {
		return id, method, true
	}
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 && se.Offset <= int64(len(payload)) {
		return headCall(payload[:se.Offset-1])
	}
	return nil, "", false
}

// lenientCall finds the call_id and method of a call message by its
// structure alone: the top-level "type", which must be "call", and "data"
// (keys in any case, as handle matches them), and in the data its
// "call_id", which must be JSON other than null, and "method"; the last of
// duplicate keys wins. Other values are skipped by their strings and
// brackets, however deeply they nest and whatever they hold (an escape or
// a literal that does not decode), so that a call whose params cannot be
// decoded can still be answered. It is meant for a payload that does not
// decode: one that does is handle's to read.
func lenientCall(payload []byte) (id json.RawMessage, method string, ok bool) {
	var typ string
	var data []byte
	top := members(payload, func(key string, v []byte) bool {
		switch {
		case strings.EqualFold(key, "type"):
			typ = ""
			return json.Unmarshal(v, &typ) == nil
		case strings.EqualFold(key, "data"):
			data = v
		}
		return true
	})
	if !top || typ != "call" || data == nil {
		return nil, "", false
	}
	ok = members(data, func(key string, v []byte) bool {
		switch key {
		case "call_id":
			id = v
		case "method":
			method = ""
			if json.Unmarshal(v, &method) != nil {
				method = ""
			}
		}
		return true
	})
	if !ok || id == nil || string(id) == "null" || !json.Valid(id) {
		return nil, "", false
	}
	return id, method, true
}

// members calls fn with each key and value of the JSON object b, in
// order, each value as its bytes; false when b is not an object by its
// structure (see skipValue), or fn returns false.
func members(b []byte, fn func(key string, v []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		end := skipValue(b, i)
		var key string
		if end < 0 || b[i] != '"' || json.Unmarshal(b[i:end], &key) != nil {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		end = skipValue(b, i)
		if end < 0 || !fn(key, b[i:end]) {
			return false
		}
		i = skipSpace(b, end)
		switch {
		case i >= len(b):
			return false
		case b[i] == ',':
			i = skipSpace(b, i+1)
		case b[i] == '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// headCallDepth is how deep headCall reads a payload's arrays and
// objects: deeper than any call_id, well within what encoding/json's
// Token reads.
const headCallDepth = 1000

// shallow returns b with each array or object nested deeper than max
// replaced by 0, strings left as they are; b itself when none is. One
// cut off by the end of b ends the result where it starts.
func shallow(b []byte, max int) []byte {
	var out []byte
	last, depth := 0, 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			if i = skipString(b, i); i < 0 {
				i = len(b)
			}
		case isOpen(c) && depth == max:
			out = append(out, b[last:i]...)
			end := skipValue(b, i)
			if end < 0 {
				return out
			}
			out = append(out, '0')
			last, i = end, end-1
		case isOpen(c):
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// skipValue returns the end of the JSON value that starts at b[i], or -1:
// a string ends at its closing quote, an object or array at the bracket
// that closes it (strings inside skipped), a literal at the first byte
// that cannot be part of one. What a string or literal holds is not
// checked.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	if !isOpen(b[i]) && b[i] != '"' {
		j := i
		for j < len(b) && literalByte(b[j]) {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
	depth := 0
	for j := i; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			j = skipString(b, j)
			if j < 0 {
				return -1
			}
		case isOpen(c):
			depth++
		case c == '}' || c == ']':
			depth--
		}
		if depth == 0 {
			return j + 1
		}
	}
	return -1
}

// skipString returns the index of the quote that closes the string whose
// opening quote is b[i], or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// isOpen reports whether c opens a JSON object or array.
func isOpen(c byte) bool { return c == '{' || c == '[' }

// skipSpace returns the index of the first byte from b[i] on that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// undecodedReason is the error result of a call whose payload
// json.Unmarshal refused with err: what is wrong, and what to send.
func undecodedReason(payload []byte, err error) string {
	if jsondepth.TooDeep(payload, jsondepth.Max) {
		return fmt.Sprintf("the call's JSON nests arrays and objects more than %d levels deep, more than the bridge decodes, so it was not run; send params that nest less deeply", jsondepth.Max)
	}
	return fmt.Sprintf("the call's JSON does not decode (%v), so it was not run; send it as one JSON object, {\"type\":\"call\",\"data\":{\"call_id\":...,\"method\":...,\"params\":{...}}}", err)
}

// headCall finds the call_id (exactly as it came) and the method of a call
// message from the first bytes of its payload,
// {"type":"call","data":{"call_id":...,"method":...,"params":...}}, and
// decides as the full message's handling would (session.handle): the
// top-level keys match in any case and the data's exactly, the last of
// duplicate keys wins, and JSON that is not well-formed is no message.
// It reports false unless the bytes show for sure a call with a call_id
// other than null: a value cut off by the end of the bytes (a number
// among them) is unknown, and so is the message's type when its "type"
// is; when the bytes end before any "type", a data with a method (a
// call's mark; results and acks have none) is taken for a call. A
// duplicate key past the kept bytes cannot be seen.
//
// It is one function, longer than most, because it is one pass of one
// decoder: the helpers cut and value, the state that decides (typ,
// typeKnown, typeSeen, closed, hasMethod) and the early returns all share
// it; split, each part would carry all of it.
func headCall(head []byte) (id json.RawMessage, method string, ok bool) {
	// From Go 1.27 on, encoding/json's Token refuses to nest deeper than
	// Unmarshal does: what lies deeper is read as one value, 0, here.
	head = shallow(head, headCallDepth)
	dec := json.NewDecoder(bytes.NewReader(head))
	// cut reports whether err is the end of the bytes rather than bad JSON:
	// io.EOF or io.ErrUnexpectedEOF up to Go 1.26, a SyntaxError "unexpected
	// end of JSON input" at the end of the bytes from Go 1.27 on.
	cut := func(err error) bool {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return true
		}
		var se *json.SyntaxError
		return errors.As(err, &se) && se.Offset >= int64(len(head)) && strings.Contains(se.Error(), "unexpected end")
	}
	// value reads the next value whole; done is false when the bytes end
	// in it (a number at the very end may go on), bad when it is not JSON.
	// It reads token by token, with no limit on nesting: params nested
	// deeper than encoding/json decodes do not hide a call_id after them.
	value := func() (v json.RawMessage, done, bad bool) {
		start := dec.InputOffset()
		for depth := 0; ; {
			t, err := dec.Token()
			if err != nil {
				return nil, false, !cut(err)
			}
			switch t {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
			if depth == 0 {
				break
			}
		}
		// What the value's tokens took: the ':' or ',' before it too.
		v = bytes.TrimLeft(head[start:dec.InputOffset()], " \t\r\n:,")
		// Only a number can go on past the end of the bytes.
		number := v[0] == '-' || (v[0] >= '0' && v[0] <= '9')
		return v, !number || dec.InputOffset() < int64(len(head)), false
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, "", false
	}
	// typeSeen: a whole "type" was read; closed: the object ended within
	// the bytes. Either rules out a "type" past them.
	typ, typeKnown, typeSeen, closed, hasMethod := "", true, false, false, false
outer:
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			if cut(err) {
				break
			}
			return nil, "", false
		}
		k, _ := key.(string)
		switch {
		case strings.EqualFold(k, "type"):
			v, done, bad := value()
			if bad {
				return nil, "", false
			}
			if !done {
				typeKnown = false
				break outer
			}
			if json.Unmarshal(v, &typ) != nil {
				return nil, "", false // the full message would not decode
			}
			typeSeen = true
		case strings.EqualFold(k, "data"):
			id, method, hasMethod = nil, "", false // the last data wins
			t, err := dec.Token()
			if err != nil {
				if cut(err) {
					break outer
				}
				return nil, "", false
			}
			if t != json.Delim('{') {
				return nil, "", false // not an object: no call
			}
			for dec.More() {
				dk, err := dec.Token()
				if err != nil {
					if cut(err) && len(bytes.TrimSpace(head[dec.InputOffset():])) == 0 {
						// The bytes end after a whole member (Go 1.27's
						// More says there is more at their end).
						break outer
					}
					// A key cut short may be a later call_id, which would
					// replace the one read.
					return nil, "", false
				}
				v, done, bad := value()
				if bad || (!done && dk == "call_id") {
					return nil, "", false
				}
				if !done {
					if dk == "method" {
						method, hasMethod = "", false
					}
					break outer
				}
				switch dk {
				case "call_id":
					id = v
				case "method":
					method = ""
					hasMethod = v[0] == '"' && json.Unmarshal(v, &method) == nil
				}
			}
			if _, err := dec.Token(); err != nil { // the data's '}'
				if cut(err) {
					break outer
				}
				return nil, "", false
			}
		default:
			_, done, bad := value()
			if bad {
				return nil, "", false
			}
			if !done {
				break outer
			}
		}
	}
	if !dec.More() {
		// The object may have ended within the bytes: then nothing but
		// space may follow it.
		if t, err := dec.Token(); err == nil && t == json.Delim('}') {
			if _, err := dec.Token(); !errors.Is(err, io.EOF) {
				return nil, "", false
			}
			closed = true
		} else if err != nil && !cut(err) {
			return nil, "", false
		}
	}
	if id == nil || string(id) == "null" || !typeKnown || (typ != "" && typ != "call") ||
		(typ == "" && (!hasMethod || typeSeen || closed)) {
		return nil, "", false
	}
	return id, method, true
}
