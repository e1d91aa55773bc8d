package evalcap

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// guard is a function whose result can be much larger than its arguments,
// and how to work out that size from the arguments before it runs. size
// may stop counting once past limit; it returns 0 for arguments the
// function refuses by itself. count, when not nil, is how many elements
// the list the function builds will have.
type guard struct {
	fn    function.Function
	size  func(args []cty.Value, limit int64) int64
	count func(args []cty.Value) int64
	// regex, when not nil, gives the text and the pattern of a function
	// that matches a regular expression again and again, and whether it
	// does for these arguments.
	regex func(args []cty.Value) (str, pattern string, ok bool)
}

// guards are the functions that are checked, by their names in the
// language. Those left out build values no larger than a small multiple of
// their arguments (upper, strrev, base64encode, concat, flatten, ...) or
// have a cap of their own (range: 1024 elements).
var guards = map[string]guard{
	"replace":       {fn: stdlib.ReplaceFunc, size: replaceSize, regex: replaceRegex},
	"regex_replace": {fn: stdlib.RegexReplaceFunc, size: regexReplaceSize, regex: regexReplaceRegex},
	"format":        {fn: stdlib.FormatFunc, size: formatSize},
	"formatlist":    {fn: stdlib.FormatListFunc, size: formatListSize},
	"join":          {fn: stdlib.JoinFunc, size: joinSize},
	"indent":        {fn: stdlib.IndentFunc, size: indentSize},
	"jsonencode":    {fn: stdlib.JSONEncodeFunc, size: jsonEncodeSize},
	"split":         {fn: stdlib.SplitFunc, size: splitSize, count: splitCount},
	"regexall":      {fn: stdlib.RegexAllFunc, size: regexAllSize, count: regexAllCount, regex: regexAllRegex},
}

// replaceSize: each occurrence of substr grows the string by the
// difference in length (an empty substr occurs before each character and
// at the end).
func replaceSize(args []cty.Value, limit int64) int64 {
	str, substr, repl := args[0].AsString(), args[1].AsString(), args[2].AsString()
	if _, pattern, ok := replaceRegex(args); ok {
		return regexReplaceSize([]cty.Value{args[0], cty.StringVal(pattern), args[2]}, limit)
	}
	n := int64(strings.Count(str, substr))
	return int64(len(str)) + n*(int64(len(repl))-int64(len(substr)))
}

// regexReplaceSize counts the matches without building the result, and
// bounds what each $ reference in the replacement adds by the length of
// the match it is in.
func regexReplaceSize(args []cty.Value, _ int64) int64 {
	str, pattern, repl := args[0].AsString(), args[1].AsString(), args[2].AsString()
	if repl == "" {
		return int64(len(str))
	}
	_, n, matched, ok := regexMatches(str, pattern)
	if !ok {
		return 0
	}
	refs := int64(strings.Count(repl, "$"))
	return int64(len(str)) - matched + n*int64(len(repl)) + refs*matched
}

// splitCount: one element more than there are separators (split("", s)
// gives one for each character).
func splitCount(args []cty.Value) int64 {
	sep, str := args[0].AsString(), args[1].AsString()
	if sep == "" {
		return int64(utf8.RuneCountInString(str))
	}
	return int64(strings.Count(str, sep)) + 1
}

// splitSize: the string less its separators.
func splitSize(args []cty.Value, _ int64) int64 {
	sep, str := args[0].AsString(), args[1].AsString()
	if sep == "" {
		return int64(len(str))
	}
	return int64(len(str)) - int64(strings.Count(str, sep)*len(sep))
}

// regexMatches counts the matches of pattern in str, and their bytes,
// without building anything but str's unmatched text; ok is false when
// pattern is not a regular expression.
func regexMatches(str, pattern string) (re *regexp.Regexp, n, matched int64, ok bool) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, 0, 0, false
	}
	re.ReplaceAllStringFunc(str, func(m string) string {
		n++
		matched += int64(len(m))
		return ""
	})
	return re, n, matched, true
}

// regexAllCount: one element for each match.
func regexAllCount(args []cty.Value) int64 {
	_, n, _, _ := regexMatches(args[1].AsString(), args[0].AsString())
	return n
}

// regexAllSize: each match, or each of its groups, whose text is at most
// the match's.
func regexAllSize(args []cty.Value, _ int64) int64 {
	re, _, matched, ok := regexMatches(args[1].AsString(), args[0].AsString())
	if !ok {
		return 0
	}
	return matched * int64(max(1, re.NumSubexp()))
}

// formatVerb is what the size of a format verb depends on.
type formatVerb struct {
	arg         int // index of its argument among the values
	width, prec int64
	json        bool // the argument is written as JSON (%#v, %q)
}

// parseFormat reads the verbs of a format string, as format does, and
// counts the bytes written as they are. A malformed verb is counted as
// text: format refuses it by itself.
func parseFormat(f string) (verbs []formatVerb, literal int64) {
	next := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			literal++
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			literal++
			i++
			continue
		}
		v := formatVerb{arg: next}
		j := i + 1
		for j < len(f) && strings.IndexByte("0#-+ ", f[j]) >= 0 {
			if f[j] == '#' {
				v.json = true
			}
			j++
		}
		v.width, j = formatNumber(f, j)
		if j < len(f) && f[j] == '.' {
			v.prec, j = formatNumber(f, j+1)
		}
		if j < len(f) && f[j] == '[' {
			var idx int64
			idx, j = formatNumber(f, j+1)
			if j < len(f) && f[j] == ']' {
				j++
			}
			v.arg = int(idx) - 1
		}
		if j < len(f) {
			if f[j] == 'q' {
				v.json = true
			}
			j++
		}
		verbs = append(verbs, v)
		next = v.arg + 1
		i = j - 1
	}
	return verbs, literal
}

// formatNumber reads the digits at f[i:], saturating far above any limit.
func formatNumber(f string, i int) (int64, int) {
	var n int64
	for ; i < len(f) && f[i] >= '0' && f[i] <= '9'; i++ {
		if n < 1<<32 {
			n = n*10 + int64(f[i]-'0')
		}
	}
	return n, i
}

// formatSize is at most the length of what format writes: the text, and
// for each verb its width, its precision and its argument.
func formatSize(args []cty.Value, limit int64) int64 {
	verbs, size := parseFormat(args[0].AsString())
	vals := args[1:]
	for _, v := range verbs {
		size += v.width + v.prec
		if v.arg >= 0 && v.arg < len(vals) {
			size += argSize(vals[v.arg], v.json, limit)
		}
		if size > limit {
			return size
		}
	}
	return size
}

// formatListSize is formatSize for each element: a list argument gives
// each result one of its elements, another argument is in each result.
func formatListSize(args []cty.Value, limit int64) int64 {
	verbs, literal := parseFormat(args[0].AsString())
	vals := args[1:]
	n := int64(1)
	for _, v := range vals {
		if isSequence(v) && !v.IsNull() {
			n = max(n, int64(v.LengthInt()))
		}
	}
	size := n * literal
	for _, v := range verbs {
		size += n * (v.width + v.prec)
		if v.arg < 0 || v.arg >= len(vals) {
			continue
		}
		a := vals[v.arg]
		if isSequence(a) && !a.IsNull() {
			for it := a.ElementIterator(); it.Next() && size <= limit; {
				_, el := it.Element()
				size += argSize(el, v.json, limit)
			}
		} else {
			size += n * argSize(a, v.json, limit)
		}
		if size > limit {
			return size
		}
	}
	return size
}

func isSequence(v cty.Value) bool {
	ty := v.Type()
	return ty.IsListType() || ty.IsSetType() || ty.IsTupleType()
}

// argSize is the length of a value written by a verb: a string's bytes,
// or its JSON.
func argSize(v cty.Value, json bool, limit int64) int64 {
	v, _ = v.UnmarkDeep()
	if !json && v.Type() == cty.String && !v.IsNull() {
		return int64(len(v.AsString()))
	}
	return jsonSize(v, limit)
}

// joinSize is the length of the elements and the separators between them.
func joinSize(args []cty.Value, limit int64) int64 {
	sep := int64(len(args[0].AsString()))
	var size, count int64
	for _, list := range args[1:] {
		for it := list.ElementIterator(); it.Next() && size <= limit; {
			_, el := it.Element()
			el, _ = el.Unmark()
			if el.IsNull() {
				continue
			}
			size += int64(len(el.AsString()))
			if count > 0 {
				size += sep
			}
			count++
		}
	}
	return size
}

// indentSize: the spaces are added after each newline.
func indentSize(args []cty.Value, _ int64) int64 {
	str := args[1].AsString()
	spaces, _ := args[0].AsBigFloat().Int64()
	if spaces <= 0 {
		return int64(len(str))
	}
	spaces = min(spaces, 1<<32)
	return int64(len(str)) + spaces*int64(strings.Count(str, "\n"))
}

func jsonEncodeSize(args []cty.Value, limit int64) int64 {
	return jsonSize(args[0], limit)
}

// Size is what a value built in an evaluation weighs: about its length as
// JSON, with strings counted as their bytes, counted until it passes stop.
func Size(v cty.Value, stop int64) int64 {
	var n int64
	addSize(v, stop, false, &n)
	return n
}

// jsonSize is at least the length of v as JSON (escapes included), counted
// until it passes stop.
func jsonSize(v cty.Value, stop int64) int64 {
	var n int64
	addSize(v, stop, true, &n)
	return n
}

func addSize(v cty.Value, stop int64, json bool, n *int64) {
	if *n > stop {
		return
	}
	v, _ = v.Unmark()
	ty := v.Type()
	switch {
	case !v.IsKnown():
	case v.IsNull():
		*n += 4
	case ty == cty.String && !json:
		*n += int64(len(v.AsString()))
	case ty == cty.String:
		*n += jsonStringSize(v.AsString())
	case ty == cty.Number:
		*n += numberSize(v)
	case ty == cty.Bool:
		*n += 5
	case ty.IsObjectType() || ty.IsMapType() || ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		*n += 2
		keyed := ty.IsObjectType() || ty.IsMapType()
		for it := v.ElementIterator(); it.Next() && *n <= stop; {
			k, el := it.Element()
			if keyed {
				*n += jsonStringSize(k.AsString()) + 1
			}
			*n++
			addSize(el, stop, json, n)
		}
	}
}

// jsonStringSize is at least the length of s as a JSON string: quotes,
// two bytes for what JSON escapes with a backslash and six for what it
// escapes as \u00XX (HTML characters too, as jsonencode does).
func jsonStringSize(s string) int64 {
	n := int64(len(s)) + 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 5
		}
	}
	return n
}

// numberSize is at least the length of a number's digits: its binary
// exponent tells how many there are before the point, its precision how
// many there can be after.
func numberSize(v cty.Value) int64 {
	bf := v.AsBigFloat()
	exp := int64(bf.MantExp(nil))
	if exp < 0 {
		exp = -exp
	}
	return exp*30103/100000 + int64(bf.MinPrec())*30103/100000 + 8
}

// replaceRegex: replace takes a substring written between slashes as a
// regular expression.
func replaceRegex(args []cty.Value) (str, pattern string, ok bool) {
	substr := args[1].AsString()
	if len(substr) > 1 && substr[0] == '/' && substr[len(substr)-1] == '/' {
		return args[0].AsString(), substr[1 : len(substr)-1], true
	}
	return "", "", false
}

func regexReplaceRegex(args []cty.Value) (str, pattern string, ok bool) {
	return args[0].AsString(), args[1].AsString(), true
}

func regexAllRegex(args []cty.Value) (str, pattern string, ok bool) {
	return args[1].AsString(), args[0].AsString(), true
}

// stopMatching is what matchInTime's callback panics with to stop the
// matching.
type stopMatching struct{}

// matchInTime matches pattern in str, every match, as the guarded
// function will, and returns a Deadline (or Cancelled) error when that
// does not end within a quarter of the time left to b: the estimates of
// size and count, then the function itself, match it again. Go's regular
// expressions take time that grows with the text for each match, so
// patterns such as a(.*b)? take time that grows with its square over all
// matches; the clock is read after each one.
func (b *Budget) matchInTime(str, pattern string) (lerr *LimitError) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil
	}
	var stop time.Time
	if !b.deadline.IsZero() {
		stop = time.Now().Add(time.Until(b.deadline) / 4)
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopMatching); !ok {
				panic(r)
			}
			lerr = b.err
		}
	}()
	re.ReplaceAllStringFunc(str, func(string) string {
		if b.ctx != nil && b.ctx.Err() != nil {
			b.fail(&LimitError{Kind: Cancelled})
			panic(stopMatching{})
		}
		if !stop.IsZero() && time.Now().After(stop) {
			b.fail(&LimitError{Kind: Deadline})
			panic(stopMatching{})
		}
		return ""
	})
	return nil
}
