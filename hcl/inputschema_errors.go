package hcl

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem is one way a value fails an input schema, in plain words.
type Problem struct {
	// Path is where in the value: object keys and array indexes as
	// strings; "*" for an item or member the validator does not name.
	// Empty for the value itself.
	Path []string
	// Keyword is the schema keyword that failed, as "minLength", with
	// the branch it is under when that is not plain: "required, in then".
	Keyword string
	// Msg says what is wrong, without the place.
	Msg string
}

// Validate checks a decoded JSON value (numbers as float64, as
// json.Unmarshal gives them) against the input schema, and words what
// fails: nil when the value fits. The validator stops at the first
// failure; the alternatives of an anyOf that fails are all in its problem.
func (ri *RawInput) Validate(v any) []Problem {
	err := ri.resolved.Validate(v)
	if err == nil {
		return nil
	}
	// The schema decoded, for the words: calls that fail are few, and a
	// tool keeps only the JSON.
	var doc any
	_ = json.Unmarshal(ri.Schema, &doc)
	return explain(err.Error(), doc, v)
}

// explain words a validation error of github.com/google/jsonschema-go. Its
// text is the chain of schemas that were being applied, outermost first
// ("validating root: validating /properties/a: validating /$defs/x: "),
// then "keyword: details". The chain gives the place in the value (each
// step down properties/NAME or prefixItems/N goes down the value; a $ref
// jumps in the schema and not in the value); the keyword's value in the
// schema and the value at that place give the words.
func explain(msg string, doc, value any) []Problem {
	first, rest, _ := strings.Cut(msg, "\n")
	chain, leaf := splitChain(first)
	path, via := instancePath(chain)
	keyword, detail, _ := strings.Cut(leaf, ": ")
	if i := strings.IndexByte(keyword, '['); i > 0 {
		keyword = keyword[:i] // dependentRequired["card"]
	}
	schemaAt := ""
	if len(chain) > 0 {
		schemaAt = chain[len(chain)-1]
	}
	kwValue, kwKnown := schemaValue(doc, schemaAt, keyword)
	if kwKnown && slices.Contains(path, "*") {
		// An item or member the validator does not name: the first that
		// fails the keyword.
		if p := firstFailing(value, path, func(v any) bool { return fails(keyword, kwValue, v) }); p != nil {
			path = p
		}
	}
	val, valKnown := valueAt(value, path)
	withVia := func(k string) string {
		if via != "" {
			return k + ", in " + via
		}
		return k
	}
	one := func(k, m string) []Problem { return []Problem{{Path: path, Keyword: withVia(k), Msg: m}} }
	if strings.HasPrefix(leaf, "unexpected additional properties ") {
		var out []Problem
		for _, name := range quotedNames(leaf) {
			out = append(out, Problem{Path: child(path, name), Keyword: withVia("additionalProperties"), Msg: "is not a property the schema allows"})
		}
		if len(out) > 0 {
			return out
		}
	}
	switch keyword {
	case "required", "dependentRequired":
		// required: missing properties: ["a" "b"], or
		// dependentRequired["card"]: missing properties ["cvc"]
		names := quotedNames(leaf)
		var out []Problem
		for i, name := range names {
			if keyword == "dependentRequired" {
				if i == 0 {
					continue // the property that has dependents
				}
				out = append(out, Problem{Path: child(path, name), Keyword: withVia(keyword), Msg: fmt.Sprintf("is required when %q is given, but missing", names[0])})
				continue
			}
			out = append(out, Problem{Path: child(path, name), Keyword: withVia(keyword), Msg: "is required but missing"})
		}
		if len(out) > 0 {
			return out
		}
	case "anyOf", "oneOf":
		if keyword == "oneOf" && strings.HasPrefix(detail, "validated against both") {
			return one(keyword, "matches more than one of the alternatives, and must match exactly one")
		}
		return one(keyword, "matches none of the alternatives, and must match one"+alternatives(rest, doc, value, path))
	case "not":
		parent, last := parentOf(schemaAt), lastStep(schemaAt)
		if b, ok := schemaValue(doc, parent, last); ok && b == false {
			// A false schema, which the validator reads as {"not": {}}.
			if extra := undeclared(doc, parent, value, path, last); len(extra) > 0 {
				out := make([]Problem, len(extra))
				for i, name := range extra {
					out[i] = Problem{Path: child(path[:len(path)-1], name), Keyword: withVia(last), Msg: "is not a property the schema allows"}
				}
				return out
			}
			if last == "items" && len(path) > 0 {
				// Items past prefixItems: the first of them is at its length.
				prefix, _ := schemaValue(doc, parent, "prefixItems")
				list, _ := prefix.([]any)
				path = child(path[:len(path)-1], strconv.Itoa(len(list)))
				return one(last, fmt.Sprintf("is one item too many: there may be %s", count(len(list), "item")))
			}
			if !slices.Contains(schemaKeywords, last) {
				last = "false schema" // as in properties = { a = false }
			}
			return one(last, "is not allowed here")
		}
		return one(keyword, "matches the schema under not, which it must not")
	}
	if kwKnown && valKnown {
		if m := plainWords(keyword, kwValue, val); m != "" {
			return one(keyword, m)
		}
	}
	if keyword == "" || strings.ContainsAny(keyword, " []\"") {
		return one("schema", leaf)
	}
	return one(keyword, detail)
}

// undeclared names the members of the object that a failed
// additionalProperties or unevaluatedProperties (keyword) is about, whose
// name the validator does not give: those that the properties of the
// schema at (or, for unevaluatedProperties, of its allOf, anyOf, oneOf,
// then, else and dependentSchemas) do not declare.
func undeclared(doc any, at string, value any, path []string, keyword string) []string {
	if len(path) == 0 || path[len(path)-1] != "*" {
		return nil
	}
	obj, ok := valueAt(value, path[:len(path)-1])
	m, isObj := obj.(map[string]any)
	if !ok || !isObj {
		return nil
	}
	declared := map[string]bool{}
	note := func(s any) {
		sm, _ := s.(map[string]any)
		props, _ := sm["properties"].(map[string]any)
		for name := range props {
			declared[name] = true
		}
	}
	self := doc
	if strings.HasPrefix(at, "/") {
		self, _ = valueAt(doc, strings.Split(at[1:], "/"))
	}
	note(self)
	if sm, ok := self.(map[string]any); ok && keyword == "unevaluatedProperties" {
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			list, _ := sm[k].([]any)
			for _, sub := range list {
				note(sub)
			}
		}
		note(sm["then"])
		note(sm["else"])
		deps, _ := sm["dependentSchemas"].(map[string]any)
		for _, sub := range deps {
			note(sub)
		}
	}
	var extra []string
	for name := range m {
		if !declared[name] {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	return extra
}

// parentOf is the path of the schema that holds the one at at.
func parentOf(at string) string {
	return strings.TrimSuffix(at, "/"+lastStep(at))
}

// alternatives words the failures of the alternatives of an anyOf or
// oneOf, the lines after its first: ": (1) ...; or (2) ...".
func alternatives(rest string, doc, value any, base []string) string {
	var parts []string
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "validating ") {
			continue // the inside of a nested alternative
		}
		probs := explain(line, doc, value)
		words := make([]string, len(probs))
		for i, p := range probs {
			words[i] = relative(p, base)
		}
		parts = append(parts, fmt.Sprintf("(%d) %s", len(parts)+1, strings.Join(words, " and ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, "; or ")
}

// relative words a problem of an alternative, its place relative to the
// value the alternatives are about.
func relative(p Problem, base []string) string {
	rest := p.Path[min(len(base), len(p.Path)):]
	if len(rest) == 0 {
		return fmt.Sprintf("%s (%s)", p.Msg, p.Keyword)
	}
	return fmt.Sprintf("%q %s (%s)", strings.Join(rest, "."), p.Msg, p.Keyword)
}

// splitChain takes the "validating SCHEMA: " prefixes off an error's first
// line: the schemas, outermost first, and what is left.
func splitChain(line string) (chain []string, leaf string) {
	for strings.HasPrefix(line, "validating ") {
		at, rest, ok := strings.Cut(line[len("validating "):], ": ")
		if !ok {
			break
		}
		chain = append(chain, at)
		line = rest
	}
	return chain, line
}

// instancePath follows a chain of schema paths down the value: the place
// the last schema was applied to, and the conditional branch (then,
// else) it is under. A schema whose path does not extend the one before
// was reached by a reference: the value stays where it is.
func instancePath(chain []string) (path []string, via string) {
	prev := ""
	for _, at := range chain {
		if !strings.HasPrefix(at, "/") {
			prev = "" // the root ("root"), or a schema named by its $id
			continue
		}
		rel := at
		if prev != "" {
			if !strings.HasPrefix(at+"/", prev+"/") {
				prev = at
				continue
			}
			rel = at[len(prev):]
		}
		steps := strings.Split(strings.TrimPrefix(rel, "/"), "/")
		for i := 0; i < len(steps); i++ {
			switch steps[i] {
			case "properties", "prefixItems":
				if i+1 < len(steps) {
					path = child(path, steps[i+1])
					i++
				}
			case "items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains", "additionalItems":
				path = child(path, "*")
			case "patternProperties", "dependentSchemas", "allOf", "anyOf", "oneOf", "$defs", "definitions":
				i++ // the name or index that follows
			case "then", "else":
				via = steps[i]
			}
		}
		prev = at
	}
	return path, via
}

// schemaValue is the value of keyword in the schema at the JSON pointer at
// (as the validator writes it, "root" for the top).
func schemaValue(doc any, at, keyword string) (any, bool) {
	s := doc
	if at != "root" && at != "" {
		if !strings.HasPrefix(at, "/") {
			return nil, false
		}
		var ok bool
		if s, ok = valueAt(doc, strings.Split(at[1:], "/")); !ok {
			return nil, false
		}
	}
	m, ok := s.(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := m[keyword]
	return v, ok
}

// valueAt is the part of v that path names; false when it names none, or
// an item or member the validator did not name ("*").
func valueAt(v any, path []string) (any, bool) {
	for _, step := range path {
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[step]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// plainWords says why val fails keyword, whose value in the schema is kw;
// "" when there are no plain words for it.
func plainWords(keyword string, kw, val any) string {
	num := func(v any) (float64, bool) {
		switch x := v.(type) {
		case float64:
			return x, true
		case json.Number:
			f, err := x.Float64()
			return f, err == nil
		}
		return 0, false
	}
	n, isNum := num(val)
	limit, limitNum := num(kw)
	s, isStr := val.(string)
	switch keyword {
	case "type":
		var want []string
		switch t := kw.(type) {
		case string:
			want = []string{t}
		case []any:
			for _, e := range t {
				if ts, ok := e.(string); ok {
					want = append(want, ts)
				}
			}
		}
		words := make([]string, len(want))
		for i, t := range want {
			words[i] = typeWord(t)
		}
		return fmt.Sprintf("must be %s, not %s", strings.Join(words, " or "), typeWord(jsonTypeOf(val)))
	case "enum":
		list, _ := kw.([]any)
		want := make([]string, len(list))
		for i, e := range list {
			want[i] = shortJSON(e)
		}
		return fmt.Sprintf("%s is not one of the allowed values %s", shortJSON(val), strings.Join(want, ", "))
	case "const":
		return fmt.Sprintf("%s is not the one allowed value, %s", shortJSON(val), shortJSON(kw))
	case "pattern":
		return fmt.Sprintf("%s does not match the pattern %s", shortJSON(val), shortJSON(kw))
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		if !isNum || !limitNum {
			return ""
		}
		words := map[string]string{
			"minimum":          "%s is less than the minimum %s",
			"maximum":          "%s is greater than the maximum %s",
			"exclusiveMinimum": "%s must be greater than %s",
			"exclusiveMaximum": "%s must be less than %s",
			"multipleOf":       "%s is not a multiple of %s",
		}
		return fmt.Sprintf(words[keyword], numText(n), numText(limit))
	case "minLength", "maxLength":
		if !isStr || !limitNum {
			return ""
		}
		if keyword == "minLength" {
			return fmt.Sprintf("is %s long, shorter than the minimum %s", count(utf8.RuneCountInString(s), "character"), numText(limit))
		}
		return fmt.Sprintf("is %s long, longer than the maximum %s", count(utf8.RuneCountInString(s), "character"), numText(limit))
	case "minItems", "maxItems":
		arr, ok := val.([]any)
		if !ok || !limitNum {
			return ""
		}
		if keyword == "minItems" {
			return fmt.Sprintf("has %s, fewer than the minimum %s", count(len(arr), "item"), numText(limit))
		}
		return fmt.Sprintf("has %s, more than the maximum %s", count(len(arr), "item"), numText(limit))
	case "minProperties", "maxProperties":
		obj, ok := val.(map[string]any)
		if !ok || !limitNum {
			return ""
		}
		if keyword == "minProperties" {
			return fmt.Sprintf("has %s, fewer than the minimum %s", count(len(obj), "property"), numText(limit))
		}
		return fmt.Sprintf("has %s, more than the maximum %s", count(len(obj), "property"), numText(limit))
	case "uniqueItems":
		return "has equal items, and its items must be unique"
	}
	return ""
}

// firstFailing is the first place in v that path (with "*" for any item
// or member) names where bad holds; nil when there is none.
func firstFailing(v any, path []string, bad func(any) bool) []string {
	if len(path) == 0 {
		if bad(v) {
			return []string{}
		}
		return nil
	}
	var steps []string
	switch x := v.(type) {
	case map[string]any:
		if path[0] != "*" {
			steps = []string{path[0]}
		} else {
			for k := range x {
				steps = append(steps, k)
			}
			slices.Sort(steps)
		}
	case []any:
		if path[0] != "*" {
			steps = []string{path[0]}
		} else {
			for i := range x {
				steps = append(steps, strconv.Itoa(i))
			}
		}
	default:
		return nil
	}
	for _, step := range steps {
		e, ok := valueAt(v, []string{step})
		if !ok {
			continue
		}
		if rest := firstFailing(e, path[1:], bad); rest != nil {
			return append([]string{step}, rest...)
		}
	}
	return nil
}

// fails reports whether v fails keyword, whose value is kw, as far as the
// keywords plainWords words go; true for the others, so that the first
// candidate is taken.
func fails(keyword string, kw, v any) bool {
	f, isNum := v.(float64)
	limit, limitNum := kw.(float64)
	switch keyword {
	case "type":
		got := jsonTypeOf(v)
		want, _ := kw.([]any)
		if t, ok := kw.(string); ok {
			want = []any{t}
		}
		for _, t := range want {
			if t == got || (t == "number" && got == "integer") {
				return false
			}
		}
		return true
	case "enum":
		list, _ := kw.([]any)
		return !slices.ContainsFunc(list, func(e any) bool { return shortJSON(e) == shortJSON(v) })
	case "const":
		return shortJSON(kw) != shortJSON(v)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		if !isNum || !limitNum {
			return false
		}
		return map[string]bool{"minimum": f < limit, "maximum": f > limit, "exclusiveMinimum": f <= limit, "exclusiveMaximum": f >= limit}[keyword]
	case "minLength", "maxLength":
		s, ok := v.(string)
		if !ok || !limitNum {
			return false
		}
		n := float64(utf8.RuneCountInString(s))
		return (keyword == "minLength" && n < limit) || (keyword == "maxLength" && n > limit)
	}
	return true
}

// quotedNames reads the Go-quoted strings in a message, in order.
func quotedNames(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			break
		}
		if u, err := strconv.Unquote(s[i : j+1]); err == nil {
			out = append(out, u)
		}
		i = j
	}
	return out
}

// lastStep is the last step of a schema path.
func lastStep(at string) string {
	return at[strings.LastIndexByte(at, '/')+1:]
}

// child is path with one more step, in a new slice.
func child(path []string, step string) []string {
	return append(slices.Clip(path), step)
}

// jsonTypeOf names the JSON type of a decoded value.
func jsonTypeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := x.Int64(); err == nil || !strings.ContainsAny(string(x), ".eE") {
			return "integer"
		}
		return "number"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// typeWord names a JSON type with its article: "an integer", "null".
func typeWord(t string) string {
	if t == "null" {
		return t
	}
	return withArticle(t)
}

// count writes n and a noun, plural but for one: "1 item", "3 properties".
func count(n int, noun string) string {
	switch {
	case n == 1:
	case strings.HasSuffix(noun, "y"):
		noun = noun[:len(noun)-1] + "ies"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// numText writes a number as JSON would.
func numText(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// shortJSON renders a value for a message, shortened.
func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 80 {
		n := 77
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "..."
	}
	return s
}

// defaultProblem words the error of resolving the input schema with its
// defaults checked, once it resolved without: a default that its own
// schema refuses ("validating /properties/n: maximum: ...").
func defaultProblem(msg string, doc any) (ptr []string, detail string) {
	chain, leaf := splitChain(msg)
	if len(chain) == 0 {
		return nil, fmt.Sprintf("input_schema has a default its schema refuses: %s. Change the default or the schema.", msg)
	}
	at := chain[0]
	if at != "root" && strings.HasPrefix(at, "/") {
		ptr = strings.Split(at[1:], "/")
	}
	ptr = append(ptr, "default")
	keyword, _, _ := strings.Cut(leaf, ": ")
	words := leaf
	def, _ := schemaValue(doc, at, "default")
	if kw, ok := schemaValue(doc, chain[len(chain)-1], keyword); ok && len(chain) == 1 {
		if m := plainWords(keyword, kw, def); m != "" {
			words = fmt.Sprintf("%s (%s)", m, keyword)
		}
	}
	return ptr, fmt.Sprintf("The default at %s, %s, does not fit its own schema: %s. Change the default or the schema.", pointerString(ptr), shortJSON(def), words)
}

// resolvePointer finds the place in the schema an error of resolving it
// is about: the $ref whose target the message names, or else the longest
// JSON pointer in the message that leads somewhere in the schema.
func resolvePointer(msg string, doc any) []string {
	var best []string
	eachSubschema(doc, nil, func(s map[string]any, ptr []string) {
		ref, _ := s["$ref"].(string)
		if target := strings.TrimPrefix(ref, "#"); best == nil && target != "" && strings.Contains(msg, target) {
			best = child(ptr, "$ref")
		}
	})
	if best != nil {
		return best
	}
	words := strings.FieldsFunc(msg, func(r rune) bool { return r == ' ' || r == ':' || r == '"' || r == ',' || r == '\'' })
	for _, w := range words {
		if !strings.HasPrefix(w, "/") {
			continue
		}
		steps := strings.Split(w[1:], "/")
		if _, ok := valueAt(doc, steps); ok && len(steps) > len(best) {
			best = steps
		}
	}
	return best
}
