package adapters

import (
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// minSecretLen is the shortest value redacted: shorter ones would blank out
// ordinary words of a message.
const minSecretLen = 4

// sensitiveWords mark a header, query or variable name as holding a
// credential.
var sensitiveWords = []string{"auth", "cookie", "token", "secret", "key", "password", "passwd", "session", "signature", "credential"}

// SensitiveName reports whether a header, query parameter or environment
// variable name looks like it holds a credential (Authorization, Cookie,
// X-Api-Key, access_token, ...). Values under such names are never put in
// error messages or logs.
func SensitiveName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range sensitiveWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Redact replaces every occurrence of the secrets in msg, and of each long
// word inside them (an upstream may echo the token of "Bearer <token>", or
// one cookie of several). Longer secrets go first.
//
// A secret is also found in the forms a message may quote it in: with the
// spaces and line ends around it trimmed (an environment variable read
// from a file often ends in a newline), Go- or JSON-escaped (a %q in a
// message, a JSON body), and URL-encoded (a query or a path).
func Redact(msg string, secrets []string) string {
	var all []string
	add := func(s string, min int) {
		for _, form := range secretForms(s) {
			if len(form) >= min {
				all = append(all, form)
			}
		}
	}
	for _, s := range secrets {
		if len(strings.TrimSpace(s)) < minSecretLen {
			continue
		}
		add(s, minSecretLen)
		for _, w := range strings.FieldsFunc(s, func(r rune) bool {
			return r == ' ' || r == ';' || r == '=' || r == ',' || r == ':' || r == '\n' || r == '\r' || r == '\t'
		}) {
			if w != s {
				add(w, minSecretWordLen)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	for _, s := range all {
		msg = strings.ReplaceAll(msg, s, "(redacted)")
	}
	return msg
}

// secretForms returns s and the other ways a message may spell it.
func secretForms(s string) []string {
	forms := []string{s}
	seen := map[string]bool{s: true}
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			forms = append(forms, f)
		}
	}
	for _, v := range []string{s, strings.TrimSpace(s)} {
		add(v)
		q := strconv.Quote(v)
		add(q[1 : len(q)-1])
		q = strconv.QuoteToASCII(v)
		add(q[1 : len(q)-1])
		if j, err := json.Marshal(v); err == nil {
			add(string(j[1 : len(j)-1]))
		}
		add(url.QueryEscape(v))
		add(url.PathEscape(v))
	}
	return forms
}

// minSecretWordLen is the shortest word of a secret redacted on its own,
// long enough to leave "Bearer" and cookie names alone.
const minSecretWordLen = 8

// redactedError is an error whose message had secrets removed; Unwrap keeps
// errors.Is working for the cause.
type redactedError struct {
	msg   string
	cause error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.cause }

// redactError removes the secrets from err's message.
func redactError(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	msg := Redact(err.Error(), secrets)
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, cause: err}
}

// sensitiveNames are the names of the parameters marked sensitive, sorted.
func sensitiveNames(params map[string]ParamInfo) []string {
	var out []string
	for name, info := range params {
		if info.Sensitive {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// sensitiveParamValues returns the string forms of the named parameters'
// values in the call's evaluation context.
func sensitiveParamValues(ev *hcl.EvalContext, names []string) []string {
	if len(names) == 0 || ev == nil {
		return nil
	}
	params, ok := ev.Variables["param"]
	if !ok || params.IsNull() || !params.IsKnown() || !params.Type().IsObjectType() {
		return nil
	}
	var out []string
	for _, n := range names {
		if !params.Type().HasAttribute(n) {
			continue
		}
		out = appendStrings(out, params.GetAttr(n))
	}
	return out
}

// appendStrings adds the strings inside v (a string, or collections of them).
func appendStrings(out []string, v cty.Value) []string {
	if v.IsNull() || !v.IsKnown() {
		return out
	}
	switch {
	case v.Type() == cty.String:
		return append(out, v.AsString())
	case v.CanIterateElements():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = appendStrings(out, e)
		}
	}
	return out
}

// markedSensitive returns the keys of an object expression (headers or
// query) whose value calls sensitive(...).
func markedSensitive(expr hcl.Expression) map[string]bool {
	obj, ok := expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return nil
	}
	out := map[string]bool{}
	for _, item := range obj.Items {
		key, diags := item.KeyExpr.Value(nil)
		if diags.HasErrors() || key.Type() != cty.String || key.IsNull() {
			if kw := hcl.ExprAsKeyword(item.KeyExpr); kw != "" {
				key = cty.StringVal(kw)
			} else {
				continue
			}
		}
		if callsSensitive(item.ValueExpr) {
			out[key.AsString()] = true
		}
	}
	return out
}

// callsSensitive reports whether expr calls sensitive(...) anywhere.
func callsSensitive(expr hcl.Expression) bool {
	node, ok := expr.(hclsyntax.Node)
	if !ok {
		return false
	}
	marked := false
	hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		if call, ok := n.(*hclsyntax.FunctionCallExpr); ok && call.Name == "sensitive" {
			marked = true
		}
		return nil
	})
	return marked
}
