package sql

import (
	"fmt"
	"strconv"
	"strings"
)

// placeholderStyle is how a driver writes the places of bind arguments.
type placeholderStyle int

const (
	// questionMarks are ? (sqlite, mysql); sqlite also numbers them ?NNN.
	questionMarks placeholderStyle = iota
	// dollarNumbers are $1, $2, ... (postgres).
	dollarNumbers
)

// lexFlags are what a dialect's statement text allows besides standard
// SQL's quotes and comments.
type lexFlags struct {
	style placeholderStyle
	// hashComments: # starts a comment to the end of the line (mysql).
	hashComments bool
	// backslashEscapes: \ escapes a quote inside a string (mysql).
	backslashEscapes bool
	// dollarQuotes: $tag$ ... $tag$ strings (postgres).
	dollarQuotes bool
	// backticks: `identifiers` (mysql, sqlite).
	backticks bool
}

// countPlaceholders returns how many bind arguments the statement q takes:
// the ? outside strings, identifiers and comments (or the highest ?NNN), or
// the highest $n. It does not parse SQL: it only skips what cannot hold a
// placeholder. A statement it cannot read to the end (a string left open)
// is an error, with a message for the config's author.
func countPlaceholders(q string, f lexFlags) (int, error) {
	bare, highest := 0, 0
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"' || (c == '`' && f.backticks):
			end, ok := closeQuote(q, i, f.backslashEscapes && c != '`')
			if !ok {
				return 0, fmt.Errorf("the quote %c at byte %d is never closed", c, i+1)
			}
			i = end
		case c == '-' && i+1 < len(q) && q[i+1] == '-', c == '#' && f.hashComments:
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			end := indexFrom(q, "*/", i+2)
			if end < 0 {
				return 0, fmt.Errorf("the comment /* at byte %d is never closed", i+1)
			}
			i = end + 2
		case c == '$' && f.style == dollarNumbers:
			n, j, err := placeholderNumber(q, i)
			if err != nil {
				return 0, err
			}
			if n > 0 {
				highest = max(highest, n)
				i = j
				continue
			}
			if f.dollarQuotes {
				if end, ok := dollarQuoteEnd(q, i); ok {
					i = end
					continue
				}
			}
			i++
		case c == '?' && f.style == questionMarks:
			n, j, err := placeholderNumber(q, i)
			if err != nil {
				return 0, err
			}
			if n > 0 {
				highest = max(highest, n)
			} else {
				bare++
			}
			i = j
		default:
			i++
		}
	}
	return max(bare, highest), nil
}

// placeholderNumber reads the number after the $ or ? at q[i] ($2, ?2):
// n is 0 when none follows, and j the index after it.
func placeholderNumber(q string, i int) (n, j int, err error) {
	j = i + 1
	for j < len(q) && isDigit(q[j]) {
		j++
	}
	if j == i+1 {
		return 0, j, nil
	}
	n, err = strconv.Atoi(q[i+1 : j])
	if err != nil || n < 1 || n > 65535 {
		return 0, 0, fmt.Errorf("the placeholder %s is out of range (1 to 65535)", q[i:j])
	}
	return n, j, nil
}

// closeQuote returns the index after the quote that closes the one at
// q[start]; a doubled quote stands for itself, and, with backslash, so does
// one after a backslash.
func closeQuote(q string, start int, backslash bool) (int, bool) {
	quote := q[start]
	for i := start + 1; i < len(q); i++ {
		switch {
		case backslash && q[i] == '\\':
			i++
		case q[i] == quote:
			if i+1 < len(q) && q[i+1] == quote {
				i++
				continue
			}
			return i + 1, true
		}
	}
	return 0, false
}

// dollarQuoteEnd returns the index after a dollar-quoted string that starts
// at q[start] ($$...$$ or $tag$...$tag$), when one starts there.
func dollarQuoteEnd(q string, start int) (int, bool) {
	j := start + 1
	for j < len(q) && (q[j] == '_' || isDigit(q[j]) || q[j]|0x20 >= 'a' && q[j]|0x20 <= 'z') {
		j++
	}
	if j >= len(q) || q[j] != '$' {
		return 0, false
	}
	tag := q[start : j+1]
	end := indexFrom(q, tag, j+1)
	if end < 0 {
		return 0, false
	}
	return end + len(tag), true
}

// indexFrom is strings.Index of sub in s from the index from.
func indexFrom(s, sub string, from int) int {
	i := strings.Index(s[from:], sub)
	if i < 0 {
		return -1
	}
	return from + i
}

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
