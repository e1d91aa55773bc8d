package hcl

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/toolhost/toolhost/internal/suggest"
)

// gjsonModifiers are the modifiers gjson has built in, for suggestions.
var gjsonModifiers = []string{"dig", "flatten", "fromstr", "group", "join", "keys", "pretty", "reverse", "this", "tostr", "ugly", "valid", "values"}

// gjsonPathProblem checks the syntax of a gjson path
// (https://github.com/tidwall/gjson/blob/master/SYNTAX.md) for mistakes that
// make it match nothing whatever the JSON: an empty path or component, a
// trailing separator, brackets, parentheses or strings that are not closed,
// an empty query and an unknown modifier. gjson itself has no validator: it
// returns nothing for such paths. It returns what is wrong, as a phrase
// ("ends with '.'"), or "" for a path it accepts.
func gjsonPathProblem(path string) string {
	if path == "" {
		return "is empty"
	}
	pos := func(i int) int { return utf8.RuneCountInString(path[:i]) + 1 }
	start := 0
	if len(path) >= 2 && path[0] == '.' && path[1] == '.' {
		start = 2 // "..": the JSON Lines prefix
		if len(path) == 2 {
			return "has nothing after the JSON Lines prefix '..'"
		}
	} else if path[0] == '.' {
		return "starts with '.'; remove it"
	}
	type frame struct {
		open  byte
		at    int
		multi bool // a multipath {a,b} or [a,b], whose elements are paths
	}
	var stack []frame
	closer := map[byte]byte{'(': ')', '[': ']', '{': '}'}
	compStart := true // at the start of a path component
	lastSep := -1
	// literal counts brackets that are part of a key, such as the
	// parentheses of "temp(C)", so that their closers are not taken for
	// unbalanced ones.
	literal := map[byte]int{}
	for i := start; i < len(path); i++ {
		c := path[i]
		inMulti := len(stack) > 0 && stack[len(stack)-1].multi
		atPathLevel := len(stack) == 0 || inMulti
		if compStart && atPathLevel && c == '@' && !gjson.DisableModifiers {
			if msg := gjsonModifierProblem(path, i); msg != "" {
				return msg
			}
		}
		switch {
		case c == '\\':
			if i+1 >= len(path) {
				return "ends with an escape '\\' that escapes nothing"
			}
			i++
			compStart = false
			continue
		case c == '"' && (len(stack) > 0 || (i > 0 && (path[i-1] == ':' || path[i-1] == '!'))):
			j := i + 1
			for ; j < len(path); j++ {
				if path[j] == '\\' {
					j++
					continue
				}
				if path[j] == '"' {
					break
				}
			}
			if j >= len(path) {
				return fmt.Sprintf("has a string starting at position %d that is never closed", pos(i))
			}
			i = j
			compStart = false
			continue
		case (c == '(' || c == '[') && i > 0 && path[i-1] == '#', c == '(' && len(stack) > 0:
			// A query: #(...), or #[...] as before gjson 1.3.
			if i+1 < len(path) && path[i+1] == closer[c] && path[i-1] == '#' {
				return fmt.Sprintf("has an empty query #%c%c at position %d; write a condition, as in #(age>40)", c, closer[c], pos(i-1))
			}
			stack = append(stack, frame{open: c, at: i})
			compStart = false
			continue
		case (c == '{' || c == '[') && (compStart || len(stack) > 0 || i > 0 && path[i-1] == ':'):
			stack = append(stack, frame{open: c, at: i, multi: compStart && atPathLevel})
			compStart = true
			continue
		case (c == '(' || c == '[' || c == '{') && len(stack) == 0:
			literal[closer[c]]++
		case (c == ')' || c == ']' || c == '}') && len(stack) == 0 && literal[c] > 0:
			literal[c]--
		case c == ')' || c == ']' || c == '}':
			if len(stack) == 0 {
				return fmt.Sprintf("has a '%c' at position %d that closes nothing; escape it as \\%c if it is part of a key", c, pos(i), c)
			}
			top := stack[len(stack)-1]
			if closer[top.open] != c {
				return fmt.Sprintf("has a '%c' at position %d that does not match the '%c' at position %d", c, pos(i), top.open, pos(top.at))
			}
			stack = stack[:len(stack)-1]
			compStart = false
			continue
		case c == ',' && inMulti, c == ':' && inMulti:
			compStart = true
			continue
		case (c == '.' || c == '|') && len(stack) == 0:
			if compStart {
				if lastSep < 0 && i == start {
					return fmt.Sprintf("starts with '%c'; remove it", c)
				}
				return fmt.Sprintf("has an empty part at position %d (two separators in a row)", pos(i))
			}
			compStart = true
			lastSep = i
			clear(literal)
			continue
		case (c == '.' || c == '|') && inMulti:
			compStart = true
			continue
		}
		compStart = false
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return fmt.Sprintf("has a '%c' at position %d that is never closed with '%c'", top.open, pos(top.at), closer[top.open])
	}
	if compStart && lastSep >= 0 {
		return fmt.Sprintf("ends with '%c'; remove it or add the next key", path[lastSep])
	}
	return ""
}

// gjsonModifierProblem checks the modifier whose '@' is at path[i]: it
// returns what is wrong when gjson has no modifier of that name, or "".
func gjsonModifierProblem(path string, i int) string {
	j := i + 1
	for j < len(path) && (path[j] == '_' || path[j] >= 'a' && path[j] <= 'z' || path[j] >= 'A' && path[j] <= 'Z' || path[j] >= '0' && path[j] <= '9') {
		j++
	}
	name := path[i+1 : j]
	if gjson.ModifierExists(name, nil) {
		return ""
	}
	msg := fmt.Sprintf("uses the modifier @%s, which gjson does not have", name)
	if s := suggest.Closest(name, gjsonModifiers); s != "" {
		msg += fmt.Sprintf("; did you mean @%s?", s)
	} else {
		msg += "; the modifiers are @" + joinSorted(gjsonModifiers, ", @")
	}
	// A key that starts with @ (JSON-LD's @id, OData's
	// @odata.count) is read with the @ escaped.
	if !strings.HasSuffix(msg, "?") {
		msg += "."
	}
	return msg + fmt.Sprintf(" If @%s is a key of the JSON (as JSON-LD's @id), escape the @: %q", name, path[:i]+`\`+path[i:])
}

// joinSorted joins a sorted copy of s with sep.
func joinSorted(s []string, sep string) string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	out := ""
	for i, x := range c {
		if i > 0 {
			out += sep
		}
		out += x
	}
	return out
}
