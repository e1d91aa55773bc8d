package host

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/toolhost/toolhost/internal/jsondepth"
)

// The reading of a plain tools/call line. A line read from stdio is
// decoded into a message (decodeMessage), its shape checked (checkShape),
// and a tools/call's params read once more for the direct path
// (plainCall): three parses of the same bytes by segmentio's decoder, a
// sixth of the server's CPU for a template call. A line of the usual
// shape, one object of exactly the keys "jsonrpc" ("2.0"), "id" (a
// non-negative integer), "method" ("tools/call") and "params" (an object
// of a "name" without escapes and, if any, "arguments" other than null),
// each once and in any order, is read here in one pass into what those
// three give for it; any other line (other keys, keys in another case or
// twice, a string id, escapes) takes the general path.

// plainLine is what plainRequest reads from a plain tools/call line.
type plainLine struct {
	req  *jsonrpc.Request
	name string          // the tool's
	args json.RawMessage // the arguments, nil when absent
}

// plainRequest reads line, valid UTF-8, when it is a plain tools/call (see
// above); ok is false for any other. It reads all but the arguments as
// strictly as JSON's grammar: a line it reads is valid JSON when its
// arguments are, which the caller checks.
func plainRequest(line []byte) (p plainLine, ok bool) {
	if jsondepth.TooDeep(line, maxDepth) {
		return p, false
	}
	s := lineScan{argParser{b: line}}
	var id int64
	var pStart, pEnd, aStart, aEnd int // params and arguments within line
	var seen [4]bool                   // jsonrpc, id, method, params
	first := func(k int) bool {        // the key's first time
		was := seen[k]
		seen[k] = true
		return !was
	}
	ok = s.object(func(key []byte) bool {
		switch string(key) {
		case "jsonrpc":
			v, isStr := s.plainString()
			return first(0) && isStr && string(v) == "2.0"
		case "id":
			var isInt bool
			id, isInt = s.smallInt()
			return first(1) && isInt
		case "method":
			v, isStr := s.plainString()
			return first(2) && isStr && string(v) == "tools/call"
		case "params":
			if !first(3) || s.peek() != '{' {
				return false
			}
			pStart = s.i
			var isPlain bool
			p.name, aStart, aEnd, isPlain = s.callParams()
			pEnd = s.i
			return isPlain
		}
		return false
	})
	s.space() // then nothing: a NUL, which peek also gives as 0, is not an end
	if !ok || s.i != len(s.b) || seen != [4]bool{true, true, true, true} || p.name == "" {
		return plainLine{}, false
	}
	raw := bytes.Clone(line[pStart:pEnd]) // the line's buffer is reused
	if aEnd > 0 {
		p.args = raw[aStart-pStart : aEnd-pStart]
	}
	rid, err := jsonrpc.MakeID(float64(id)) // as decodeMessage makes it
	if err != nil {
		return plainLine{}, false
	}
	p.req = &jsonrpc.Request{ID: rid, Method: "tools/call", Params: raw}
	return p, true
}

// lineScan reads the JSON of a line: its reading of an object, a string
// and an integer refuses what JSON does not allow; skipValue does not
// check what it skips. (argParser's space skips white space; its ok is not
// used.)
type lineScan struct {
	argParser
}

// peek is the next byte after white space, 0 at the end.
func (s *lineScan) peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object reads an object, calling member with each key (without escapes;
// a key with one ends the reading with false) to read the member's value.
func (s *lineScan) object(member func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		key, ok := s.plainString()
		if !ok || s.peek() != ':' {
			return false
		}
		s.i++
		if !member(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// plainString reads a string without escapes or control characters (which
// JSON does not allow unescaped) and returns its bytes.
func (s *lineScan) plainString() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '\\' || c < 0x20:
			return nil, false
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		}
	}
	return nil, false
}

// smallInt reads a non-negative integer of at most 15 digits (within the
// ±2^53 an id may be) with no fraction or exponent, and no leading zero.
func (s *lineScan) smallInt() (int64, bool) {
	s.space()
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == start || s.i-start > 15 || (s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E')) {
		return 0, false
	}
	if s.b[start] == '0' && s.i-start > 1 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	return n, err == nil
}

// callParams reads a tools/call's params object of a "name" and, if any,
// "arguments" (not null), each once; the arguments are b[aStart:aEnd],
// aEnd 0 when there are none.
func (s *lineScan) callParams() (name string, aStart, aEnd int, ok bool) {
	var sawName bool
	ok = s.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			if sawName {
				return false
			}
			sawName = true
			v, isStr := s.plainString()
			name = string(v)
			return isStr
		case "arguments":
			if aEnd > 0 {
				return false
			}
			s.space()
			aStart = s.i
			if !s.skipValue() {
				return false
			}
			aEnd = s.i
			return string(s.b[aStart:aEnd]) != "null"
		}
		return false
	})
	return name, aStart, aEnd, ok
}

// skipValue skips one value.
func (s *lineScan) skipValue() bool {
	switch c := s.peek(); c {
	case '"':
		for j := s.i + 1; j < len(s.b); j++ {
			switch s.b[j] {
			case '\\':
				j++
			case '"':
				s.i = j + 1
				return true
			}
		}
		return false
	case '{', '[':
		depth := 0
		for j := s.i; j < len(s.b); j++ {
			switch s.b[j] {
			case '"':
				j++
				for j < len(s.b) && s.b[j] != '"' {
					if s.b[j] == '\\' {
						j++
					}
					j++
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i = j + 1
					return true
				}
			}
		}
		return false
	case 0:
		return false
	default: // a number, true, false or null
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}
