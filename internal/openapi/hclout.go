package openapi

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolhost/toolhost/internal/hclfmt"
)

// writer builds HCL text line by line; hclfmt lays it out afterwards.
type writer struct {
	b     strings.Builder
	depth int
}

// line writes one line at the current depth.
func (w *writer) line(format string, args ...any) {
	w.b.WriteString(strings.Repeat("  ", w.depth))
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// open writes a block's first line and enters it.
func (w *writer) open(format string, args ...any) {
	w.line(format+" {", args...)
	w.depth++
}

// close leaves a block.
func (w *writer) close() {
	w.depth--
	w.line("}")
}

// attr writes name = expr.
func (w *writer) attr(name, expr string) {
	w.line("%s = %s", name, expr)
}

// comment writes text as # lines, one per line of text: text from the
// document never ends its comment, whatever breaks lines it holds, and
// its other control characters (NUL, a terminal's ESC) are written as
// \u escapes, so that the file stays text that a terminal shows as it is.
func (w *writer) comment(text string) {
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n", "\v", "\n", "\f", "\n", "\u0085", "\n").Replace(text)
	var b strings.Builder
	for _, r := range text {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	for _, l := range strings.Split(b.String(), "\n") {
		w.line("%s", strings.TrimRight("# "+l, " "))
	}
}

// quote writes s as an HCL quoted string whose value is exactly s: no
// template sequence in s is ever evaluated (see hclfmt.Quote).
func quote(s string) string { return hclfmt.Quote(s) }

// templateText escapes literal text for use inside a quoted template
// that also holds interpolations: quote without the quotes.
func templateText(s string) string {
	q := quote(s)
	return q[1 : len(q)-1]
}

// key writes an object key: bare when it can be, else quoted.
func key(s string) string {
	if bareKey(s) {
		return s
	}
	return quote(s)
}

// value writes a JSON value (as encoding/json or YAML decode it) as an
// HCL expression; objects and lists longer than a line are spread over
// lines indented from indent.
func value(v any, indent int) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case string:
		return quote(x)
	case json.Number:
		return x.String()
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "null"
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case []any:
		parts := make([]string, len(x))
		short := true
		for i, e := range x {
			parts[i] = value(e, indent+1)
			if strings.Contains(parts[i], "\n") {
				short = false
			}
		}
		if one := "[" + strings.Join(parts, ", ") + "]"; short && len(one) <= 80 {
			return one
		}
		pad := strings.Repeat("  ", indent+1)
		return "[\n" + pad + strings.Join(parts, ",\n"+pad) + ",\n" + strings.Repeat("  ", indent) + "]"
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("{\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "%s%s = %s\n", strings.Repeat("  ", indent+1), key(k), value(x[k], indent+1))
		}
		b.WriteString(strings.Repeat("  ", indent) + "}")
		return b.String()
	case orderedObject:
		if len(x) == 0 {
			return "{}"
		}
		var b strings.Builder
		b.WriteString("{\n")
		for _, kv := range x {
			fmt.Fprintf(&b, "%s%s = %s\n", strings.Repeat("  ", indent+1), key(kv.k), value(kv.v, indent+1))
		}
		b.WriteString(strings.Repeat("  ", indent) + "}")
		return b.String()
	case rawExpr:
		return string(x)
	}
	// Any other type (a map from YAML with non-string keys, say) goes
	// through JSON.
	data, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	var back any
	if json.Unmarshal(data, &back) != nil {
		return "null"
	}
	return value(back, indent)
}

// orderedObject is an object whose keys keep their order.
type orderedObject []keyValue

// keyValue is one entry of an orderedObject.
type keyValue struct {
	k string
	v any
}

// rawExpr is HCL text written as it is.
type rawExpr string
