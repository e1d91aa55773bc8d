package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/suggest"
)

// decodeRawArgs checks arguments against a hand-written input_schema and
// makes them the "param" object: the arguments as they came, with the
// schema's top-level properties that are absent as null. A refusal names
// the parameter, the place inside it and the keyword that failed.
func decodeRawArgs(ri *thcl.RawInput, raw json.RawMessage) (cty.Value, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	obj, ok := fastArgs(trimmed)
	if !ok {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil || dec.InputOffset() != int64(len(trimmed)) {
			return cty.NilVal, &ArgumentError{Msg: "arguments are not valid JSON"}
		}
		if obj, ok = v.(map[string]any); !ok {
			return cty.NilVal, &ArgumentError{Msg: fmt.Sprintf("arguments must be a JSON object, got %s", jsonKind(v))}
		}
	}
	if path, ok := outOfRange(obj, ""); !ok {
		return cty.NilVal, &ArgumentError{Param: path, Msg: "is out of range: a number beyond what a 64-bit number holds"}
	}
	// The validator wants plain JSON values: numbers as float64.
	var plain any
	_ = json.Unmarshal(trimmed, &plain)
	if probs := ri.Validate(plain); len(probs) > 0 {
		return cty.NilVal, schemaProblems(ri, obj, probs)
	}
	attrs := make(map[string]cty.Value, len(obj)+len(ri.Properties))
	for k, e := range obj {
		attrs[k] = anyValue(e)
	}
	for _, name := range ri.Properties {
		if _, ok := attrs[name]; !ok {
			attrs[name] = cty.NullVal(cty.DynamicPseudoType)
		}
	}
	return cty.ObjectVal(attrs), nil
}

// schemaProblems makes the problems an input_schema finds in arguments
// one error: each names its parameter and the place inside it, as the
// checks of param blocks do. A property the schema does not allow at the
// top is a parameter the tool does not have.
func schemaProblems(ri *thcl.RawInput, args map[string]any, probs []thcl.Problem) error {
	errs := make([]error, len(probs))
	for i, p := range probs {
		msg := fmt.Sprintf("%s (%s)", p.Msg, p.Keyword)
		if len(p.Path) == 0 || p.Path[0] == "*" {
			// "*": a member the validator does not name.
			if len(p.Path) > 0 {
				msg = "one of the parameters " + msg
			}
			errs[i] = &ArgumentError{Msg: msg}
			continue
		}
		if len(p.Path) == 1 && (strings.HasPrefix(p.Keyword, "additionalProperties") || strings.HasPrefix(p.Keyword, "unevaluatedProperties")) {
			msg = "this tool has no such parameter"
			if s := suggest.Closest(p.Path[0], ri.Properties); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			if len(ri.Properties) > 0 {
				msg += "; its parameters are " + strings.Join(ri.Properties, ", ")
			}
			msg += " (" + p.Keyword + ")"
		}
		errs[i] = &ArgumentError{Param: shortName(p.Path[0]), Path: valuePath(args[p.Path[0]], p.Path[1:]), Msg: msg}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return &ArgumentErrors{errs: errs}
}

// valuePath writes the place the tokens name inside v as the checks of
// param blocks write it: ".key" for an object member, "[i]" for an array
// element.
func valuePath(v any, tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		switch x := v.(type) {
		case []any:
			b.WriteString("[" + t + "]")
			if i, err := strconv.Atoi(t); err == nil && i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		case map[string]any:
			b.WriteString("." + t)
			v = x[t]
		default:
			b.WriteString("." + t)
			v = nil
		}
	}
	return b.String()
}
