package sqlvalue

import (
	"strconv"
	"strings"
)

// maxArrayDepth caps the dimensions of an array read: PostgreSQL allows
// at most 6.
const maxArrayDepth = 6

// appendArray appends s, PostgreSQL's text of an array ("{1,NULL,3}",
// "{{1,2},{3,4}}", "[0:1]={a,b}") whose elements are of kind elem, as a
// JSON array of the elements, each read as a column of kind elem; text
// that is not an array is a string.
func appendArray(dst []byte, elem kind, s string) []byte {
	text := s
	if strings.HasPrefix(text, "[") {
		// Bounds other than the default, such as [0:1]={a,b}.
		if _, rest, ok := strings.Cut(text, "="); ok {
			text = rest
		}
	}
	p := arrayParser{s: text, elem: elem}
	out, ok := p.array(dst, 1)
	if !ok || p.i != len(p.s) {
		return appendString(dst, s)
	}
	return out
}

// arrayParser reads PostgreSQL's text of an array.
type arrayParser struct {
	s    string
	i    int
	elem kind
}

// array reads one array, of nesting depth, at p.i and appends it.
func (p *arrayParser) array(dst []byte, depth int) ([]byte, bool) {
	if depth > maxArrayDepth || p.i >= len(p.s) || p.s[p.i] != '{' {
		return dst, false
	}
	p.i++
	dst = append(dst, '[')
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return append(dst, ']'), true
	}
	for first := true; ; first = false {
		if !first {
			dst = append(dst, ',')
		}
		var ok bool
		switch {
		case p.i < len(p.s) && p.s[p.i] == '{':
			dst, ok = p.array(dst, depth+1)
		default:
			dst, ok = p.element(dst)
		}
		if !ok || p.i >= len(p.s) {
			return dst, false
		}
		c := p.s[p.i]
		p.i++
		switch c {
		case ',':
			continue
		case '}':
			return append(dst, ']'), true
		}
		return dst, false
	}
}

// element reads one element at p.i, quoted or not, and appends it.
func (p *arrayParser) element(dst []byte) ([]byte, bool) {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		var b strings.Builder
		for p.i++; p.i < len(p.s); p.i++ {
			switch c := p.s[p.i]; c {
			case '\\':
				p.i++
				if p.i < len(p.s) {
					b.WriteByte(p.s[p.i])
				}
			case '"':
				p.i++
				return appendText(dst, p.elem, kindAny, b.String()), true
			default:
				b.WriteByte(c)
			}
		}
		return dst, false
	}
	end := strings.IndexAny(p.s[p.i:], ",}")
	if end < 0 {
		return dst, false
	}
	raw := strings.TrimSpace(p.s[p.i : p.i+end])
	p.i += end
	if raw == "" {
		return dst, false
	}
	if strings.EqualFold(raw, "NULL") {
		return append(dst, "null"...), true
	}
	return appendText(dst, p.elem, kindAny, raw), true
}

// appendSet appends s, MySQL's text of a SET's value, as an array of its
// members.
func appendSet(dst []byte, s string) []byte {
	dst = append(dst, '[')
	if s != "" {
		for i, m := range strings.Split(s, ",") {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, m)
		}
	}
	return append(dst, ']')
}

// isoInterval is s, an interval in PostgreSQL's default style ("1 year 2
// mons 3 days 04:05:06.5" or "-00:00:01"), as
// PostgreSQL's iso_8601 style writes it: "P1Y2M3DT4H5M6.5S", each part
// with its own sign. Text in another style is kept.
func isoInterval(s string) string {
	fields := strings.Fields(s)
	var date, clock strings.Builder
	units := map[string]string{"year": "Y", "years": "Y", "mon": "M", "mons": "M", "day": "D", "days": "D"}
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Contains(f, ":") {
			if i != len(fields)-1 || !appendClock(&clock, f) {
				return s
			}
			continue
		}
		if i+1 >= len(fields) {
			return s
		}
		unit, ok := units[fields[i+1]]
		if _, err := strconv.ParseInt(f, 10, 64); err != nil || !ok {
			return s
		}
		if n := strings.TrimPrefix(f, "+"); n != "0" {
			date.WriteString(n + unit)
		}
		i++
	}
	out := "P" + date.String()
	if clock.Len() > 0 {
		out += "T" + clock.String()
	}
	if out == "P" {
		return "PT0S"
	}
	return out
}

// appendClock writes the hours, minutes and seconds of f ("[-]HH:MM:SS[.f]")
// as ISO 8601's 4H5M6.5S, leaving out the parts that are zero, and reports
// whether f read as such.
func appendClock(b *strings.Builder, f string) bool {
	sign := ""
	if rest, ok := strings.CutPrefix(f, "-"); ok {
		sign, f = "-", rest
	}
	parts := strings.Split(f, ":")
	if len(parts) != 3 {
		return false
	}
	for i, unit := range []string{"H", "M", "S"} {
		v := parts[i]
		if i == 2 {
			whole, frac, _ := strings.Cut(v, ".")
			frac = strings.TrimRight(frac, "0")
			v = whole
			if frac != "" {
				v += "." + frac
			}
		}
		n := strings.TrimLeft(v, "0")
		if n == "" || n[0] == '.' {
			n = "0" + n
		}
		if _, err := strconv.ParseFloat(n, 64); err != nil {
			return false
		}
		if n != "0" {
			b.WriteString(sign + n + unit)
		}
	}
	return true
}
