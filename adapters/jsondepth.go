package adapters

// MaxJSONDepth is how deeply arrays and objects may nest in output that
// toolhost reads as JSON: encoding/json's own limit, beyond which no value
// could be decoded or sent anyway. The readers (gjson's validator, the
// result mapping) recurse once a level, so an upstream that sent millions
// of "[" in a body under max_response would otherwise overflow the stack,
// which ends the process rather than the call.
const MaxJSONDepth = 10000

// JSONTooDeep reports whether b nests arrays and objects deeper than
// MaxJSONDepth. It reads b once, without recursion, and does not check
// that b is JSON: brackets inside strings do not count.
func JSONTooDeep(b []byte) bool {
	depth := 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > MaxJSONDepth {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}
