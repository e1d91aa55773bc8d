// Package linebreak finds the carriage returns that no line feed follows
// ("lone CRs", the line ends of classic Mac OS), which HCL's parser reads
// as invalid characters and its diagnostic writer as line breaks.
package linebreak

import "bytes"

// LoneCRAt reports whether src holds, at offset i, a carriage return that
// no line feed follows.
func LoneCRAt(src []byte, i int) bool {
	return 0 <= i && i < len(src) && src[i] == '\r' && (i+1 == len(src) || src[i+1] != '\n')
}

// HasLoneCR reports whether src has a carriage return that no line feed
// follows.
func HasLoneCR(src []byte) bool {
	for i := bytes.IndexByte(src, '\r'); i >= 0; {
		if LoneCRAt(src, i) {
			return true
		}
		j := bytes.IndexByte(src[i+1:], '\r')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}
