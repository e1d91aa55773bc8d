// Package jsondepth measures how deeply JSON nests without decoding it, so
// that a reader that recurses once a level is never handed more levels than
// it can take.
package jsondepth

import "bytes"

// Max is how deeply arrays and objects may nest in output that
// toolhost reads as JSON: encoding/json's own limit, beyond which no value
// could be decoded or sent anyway. The readers (gjson's validator, the
// result mapping) recurse once a level, so an upstream that sent millions
// of "[" in a body under max_response would otherwise overflow the stack,
// which ends the process rather than the call.
const Max = 10000

// class classifies the bytes TooDeep looks at: 1 opens, 2 closes,
// 3 starts a string; 0 is any other.
var class = func() (t [256]uint8) {
	t['['], t['{'] = 1, 1
	t[']'], t['}'] = 2, 2
	t['"'] = 3
	return t
}()

// TooDeep reports whether b nests arrays and objects deeper than max
// levels. It reads b once, without recursion, and does not check
// that b is JSON: brackets inside strings do not count. A body with no
// more openings than the limit is passed at once (two vectorised counts);
// strings are skipped with IndexByte.
func TooDeep(b []byte, max int) bool {
	if len(b) <= max || bytes.Count(b, []byte{'['})+bytes.Count(b, []byte{'{'}) <= max {
		return false
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch class[b[i]] {
		case 1:
			depth++
			if depth > max {
				return true
			}
		case 2:
			depth--
		case 3:
			// The closing quote: the next one not escaped, that is, not
			// after an odd number of backslashes.
			j := i + 1
			for {
				k := bytes.IndexByte(b[j:], '"')
				if k < 0 {
					return false // an unterminated string: not JSON
				}
				j += k
				n := 0
				for p := j - 1; p > i && b[p] == '\\'; p-- {
					n++
				}
				if n%2 == 0 {
					break
				}
				j++
			}
			i = j
		}
	}
	return false
}
