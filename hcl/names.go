package hcl

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/suggest"
)

// nameAliases are the names other schema languages (JSON Schema, OpenAPI,
// other MCP servers' configs) give to toolhost's blocks and arguments, too
// far from them for HCL's "Did you mean" to find ("paramter" is three edits
// from "param", "desc" seven from "description"). A name can stand for
// different ones in different blocks ("argument" is a tool's param and a
// prompt's arg): the first whose target the block takes is used. hint,
// when set, replaces "Did you mean" with what to write. An array, not a
// map: it is read only when a config has an error.
var nameAliases = [...]struct{ from, to, hint string }{
	{"parameter", "param", ""},
	{"parameters", "param", ""},
	{"params", "param", ""},
	{"paramter", "param", ""},
	{"paramater", "param", ""},
	{"input", "param", ""},
	{"argument", "param", ""},
	{"args", "param", ""},
	{"arg", "param", ""},
	{"argument", "arg", ""},
	{"arguments", "arg", ""},
	{"param", "arg", ""},
	{"params", "arg", ""},
	{"parameter", "arg", ""},
	{"output", "result", ""},
	{"returns", "result", ""},
	{"examples", "example", ""},
	{"test", "example", ""},
	{"desc", "description", ""},
	{"summary", "description", ""},
	{"help", "description", ""},
	{"values", "enum", ""},
	{"choices", "enum", ""},
	{"options", "enum", ""},
	{"allowed", "enum", ""},
	{"allowed_values", "enum", ""},
	{"regex", "pattern", ""},
	{"regexp", "pattern", ""},
	{"min", "minimum", ""},
	{"max", "maximum", ""},
	{"min_len", "min_length", ""},
	{"max_len", "max_length", ""},
	{"secret", "sensitive", ""},
	{"default_value", "default", ""},
	{"defaultValue", "default", ""},
	{"optional", "required", "A parameter is made optional with required = false (or with a default)."},
}

// backendOfArgument returns the backend block an argument written in a
// tool block belongs in (a registered kind whose Keys name it), or "".
func backendOfArgument(name string) string {
	for _, kind := range adapters.Names() {
		k, _ := adapters.Lookup(kind)
		if slices.Contains(k.Keys, name) {
			return kind
		}
	}
	return ""
}

// unsupportedName returns the name an "Unsupported argument" or
// "Unsupported block type" diagnostic of HCL's is about, and whether it is
// a block; ok is false for other diagnostics and for those HCL already
// made a suggestion for.
func unsupportedName(d *hcl.Diagnostic) (name string, block bool, ok bool) {
	var rest string
	switch d.Summary {
	case "Unsupported argument":
		rest, ok = strings.CutPrefix(d.Detail, `An argument named "`)
	case "Unsupported block type":
		rest, ok = strings.CutPrefix(d.Detail, `Blocks of type "`)
		block = true
	}
	if !ok {
		return "", false, false
	}
	name, rest, ok = strings.Cut(rest, `"`)
	if !ok || strings.Contains(rest, "Did you mean") {
		return "", false, false
	}
	return name, block, true
}

// explainUnsupported adds to HCL's "not expected here" diagnostics of a
// block decoded with schema the name to write when the one written is
// another language's (nameAliases), and, in a tool block, the backend
// block an argument belongs in.
func explainUnsupported(diags hcl.Diagnostics, schema *hcl.BodySchema) {
	has := func(name string) bool { return schemaHas(schema, name) }
	for _, d := range diags {
		if rest, ok := strings.CutPrefix(d.Detail, `An argument named "`); ok && d.Summary == "Unsupported argument" {
			// HCL's " Did you mean to define a block of type "X"?"
			if name, _, _ := strings.Cut(rest, `"`); strings.HasSuffix(d.Detail, fmt.Sprintf(" Did you mean to define a block of type %q?", name)) {
				d.Detail = fmt.Sprintf("%s is a block, not an argument: write it without \"=\", as %s { ... }.", name, name)
				continue
			}
		}
		name, _, ok := unsupportedName(d)
		if !ok {
			continue
		}
		if b := backendOfArgument(name); b != "" && has(b) {
			d.Detail = sentenceEnd(d.Detail) + fmt.Sprintf(" %s is an argument of the %s block: move it into the tool's %s { ... } block.", name, b, b)
			continue
		}
		for _, a := range nameAliases {
			if !strings.EqualFold(a.from, name) || !has(a.to) {
				continue
			}
			if a.hint != "" {
				d.Detail = sentenceEnd(d.Detail) + " " + a.hint
			} else {
				d.Detail = sentenceEnd(d.Detail) + fmt.Sprintf(" Did you mean %q?", a.to)
			}
			break
		}
	}
}

// schemaHas reports whether schema takes an argument or a block of type
// name.
func schemaHas(schema *hcl.BodySchema, name string) bool {
	for _, a := range schema.Attributes {
		if a.Name == name {
			return true
		}
	}
	for _, b := range schema.Blocks {
		if b.Type == name {
			return true
		}
	}
	return false
}

// misspeltLabels returns the labels of the blocks of body that schema
// does not take and that are meant as blocks of type want: misspelt, as
// HCL's "Did you mean" finds (parm "x" for param "x"), or named as another
// language names them (nameAliases: parameter "x"). Their labels count as
// declared, so that the misspelt block is reported and not also every
// reference to its name. found are the diagnostics of the body's decoding
// with schema: without an error among them, there is no such block, and
// the body is not looked at (a load of a valid config pays nothing).
func misspeltLabels(body hcl.Body, schema *hcl.BodySchema, want string, found hcl.Diagnostics) []string {
	sb, ok := body.(*hclsyntax.Body)
	if !ok || !found.HasErrors() {
		return nil
	}
	var types []string
	for _, b := range schema.Blocks {
		types = append(types, b.Type)
	}
	var labels []string
	for _, b := range sb.Blocks {
		if len(b.Labels) != 1 || schemaHas(schema, b.Type) {
			continue
		}
		meant := suggest.Closest(b.Type, types)
		if meant == "" {
			for _, a := range nameAliases {
				if strings.EqualFold(a.from, b.Type) && schemaHas(schema, a.to) {
					meant = a.to
					break
				}
			}
		}
		if meant == want {
			labels = append(labels, b.Labels[0])
		}
	}
	return labels
}

// sanitizeName turns s into a name that fits the naming rules, for hints.
func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	out := b.String()
	if out == "" || (out[0] >= '0' && out[0] <= '9') {
		out = "x" + out
	}
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}

// validIdentifier is hclsyntax.ValidIdentifier, which runs HCL's scanner
// on s, with a fast path for ASCII: a letter or _, then letters, digits,
// _ and -. Every param of every tool is checked at each load, and the
// scanner is a large share of a param's decode.
func validIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return hclsyntax.ValidIdentifier(s)
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}
