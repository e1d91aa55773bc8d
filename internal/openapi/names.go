package openapi

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// maxToolName is the longest tool name written: model APIs refuse longer.
const maxToolName = 64

// snake turns an operationId, a parameter or property name into
// snake_case ASCII: listPets and list-pets become list_pets, HTTPServer
// http_server. It returns "" for a name with no letter or digit.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	under := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	for i, r := range rs {
		switch {
		case r < unicode.MaxASCII && unicode.IsUpper(r):
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1]) && i > 0 && unicode.IsUpper(rs[i-1])
			if prevLower || nextLower {
				under()
			}
			b.WriteRune(unicode.ToLower(r))
		case r < unicode.MaxASCII && (unicode.IsLower(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		default:
			under()
		}
	}
	return strings.Trim(b.String(), "_")
}

// identifier is snake(s) made a valid HCL identifier that is no
// keyword (a name that starts with a digit gets an n before it), or
// fallback when s has no letter or digit.
func identifier(s, fallback string) string {
	n := snake(s)
	if n == "" {
		n = fallback
	}
	if n != "" && n[0] >= '0' && n[0] <= '9' {
		n = "n" + n
	}
	if hclKeyword(n) {
		n += "_"
	}
	return n
}

// hclKeyword reports whether s is a word HCL reads as more than a name
// in an object's key or an expression.
func hclKeyword(s string) bool {
	switch s {
	case "for", "in", "if", "null", "true", "false", "param", "answer", "env":
		return true
	}
	return false
}

// bareKey reports whether s can be written as an object key without
// quotes (a name with a dash could, but reads as a subtraction).
func bareKey(s string) bool {
	return hclsyntax.ValidIdentifier(s) && !hclKeyword(s) && !strings.Contains(s, "-")
}

// uniqueNames hands out names unique among those it has handed out, by
// adding _2, _3, ... to a repeated one; max caps a name's length.
type uniqueNames struct {
	seen map[string]bool
	max  int
}

// take returns name, or name with a number when it is taken already.
func (u *uniqueNames) take(name string) string {
	if u.seen == nil {
		u.seen = map[string]bool{}
	}
	if u.max > 0 && len(name) > u.max {
		name = strings.TrimRight(name[:u.max], "_")
	}
	cand := name
	for i := 2; u.seen[cand]; i++ {
		suffix := "_" + strconv.Itoa(i)
		base := name
		if u.max > 0 && len(base)+len(suffix) > u.max {
			base = base[:u.max-len(suffix)]
		}
		cand = base + suffix
	}
	u.seen[cand] = true
	return cand
}
