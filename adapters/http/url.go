package http

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// urlArg is the url argument, in one of three forms: a constant, a quoted
// template whose parts are evaluated and escaped separately, or any other
// expression evaluated whole.
type urlArg struct {
	constant *url.URL
	parts    []urlPart
	whole    *value
}

// urlPart is a part of a url template.
type urlPart struct {
	value *value
	param bool // derived from param: escaped where it lands
}

// urlGuess is the length a templated url's buffer starts with.
const urlGuess = 128

// Where a part of a URL lands.
const (
	inAuthority = iota // scheme, userinfo, host, port
	inPath
	inQuery // query or fragment
)

// urlPosition tells where text appended to prefix lands.
func urlPosition(prefix string) int {
	i := strings.Index(prefix, "://")
	if i < 0 {
		return inAuthority
	}
	rest := prefix[i+3:]
	j := strings.IndexAny(rest, "/?#")
	if j < 0 {
		return inAuthority
	}
	if strings.ContainsAny(rest[j:], "?#") {
		return inQuery
	}
	return inPath
}

// compileURL compiles the url argument, checking what can be checked now.
func (c *compiler) compileURL(a *hcl.Attribute) *urlArg {
	val, ok := c.eval(a.Expr)
	if !ok {
		return nil
	}
	if err := checkScalarType(val.Type(), false); err != nil || (val.IsKnown() && val.IsNull()) {
		c.errorf(a.Expr.Range(), "Invalid url",
			"The url must be a string such as \"https://api.example.com/v1/items\".")
		return nil
	}
	if v := newValue(a.Expr, val, "url"); v.known {
		s, err := valueString(v.val)
		if err == nil {
			var u *url.URL
			if u, err = parseTarget(s); err == nil {
				return &urlArg{constant: u}
			}
		}
		c.errorf(a.Expr.Range(), "Invalid url", "%s Write a full URL such as \"https://api.example.com/v1/items\".%s", sentence(err.Error()), envNote(a.Expr))
		return nil
	}

	tmpl, isTemplate := a.Expr.(*hclsyntax.TemplateExpr)
	if !isTemplate {
		return &urlArg{whole: &value{expr: a.Expr, what: "url"}}
	}
	u := &urlArg{}
	prefix, prefixKnown, schemeChecked := "", true, false
	for _, p := range tmpl.Parts {
		pv, _ := p.Value(c.ev) // the whole template evaluated cleanly
		part := urlPart{value: newValue(p, pv, "url"), param: refsParam(p)}
		u.parts = append(u.parts, part)
		switch {
		case part.param:
			c.optionalInURL(p)
			if !prefixKnown {
				continue
			}
			if urlPosition(prefix) == inAuthority && !strings.Contains(prefix, "://") && strings.ContainsAny(prefix, "/?#") {
				// "api.example.com/items/${param.id}": the scheme is
				// missing, and the parameter is not in the host at all.
				c.errorf(a.Expr.Range(), "Invalid url", "%s%s", sentence(noScheme(prefix, true).Error()), envNote(a.Expr))
				prefixKnown = false
				continue
			}
			if urlPosition(prefix) == inAuthority {
				c.errorf(p.Range(), "Parameter in URL host",
					"This parameter would land in the scheme or host part of the url, where a value could send the request to another server. Use parameters only in the path or the query, for example \"https://api.example.com/items/${param.id}\", or use the query argument.")
				prefixKnown = false // one report is enough
				continue
			}
			if !schemeChecked {
				schemeChecked = true
				scheme := strings.ToLower(prefix[:strings.Index(prefix, "://")])
				if scheme != "http" && scheme != "https" {
					c.errorf(a.Expr.Range(), "Invalid url",
						"The url scheme %q is not supported. Write a URL starting with http:// or https://.", scheme)
				}
			}
		case part.value.known:
			s, err := valueString(part.value.val)
			if err != nil {
				c.errorf(p.Range(), "Invalid url", "The interpolated value %s. Convert it to a string.", err)
				prefixKnown = false
				continue
			}
			part.value.val = cty.StringVal(s)
			prefix += s
		default:
			prefixKnown = false
		}
	}
	return u
}

// optionalInURL warns about ${param.NAME} in a url for a parameter that
// a call may leave out, with no default: a call without it fails, since a
// url cannot hold a null. A part that handles the null itself (a
// conditional, coalesce(...)) is not warned about.
func (c *compiler) optionalInURL(part hcl.Expression) {
	tr, ok := part.(*hclsyntax.ScopeTraversalExpr)
	if !ok || len(tr.Traversal) != 2 || tr.Traversal.RootName() != paramRoot {
		return
	}
	step, ok := tr.Traversal[1].(hcl.TraverseAttr)
	if !ok || !c.cc.Params[step.Name].Optional {
		return
	}
	c.diags = append(c.diags, &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "Optional parameter in url",
		Detail: fmt.Sprintf("The parameter %q is optional and has no default, so every call without it fails: a url cannot hold a null. "+
			"Give it a default, make it required (remove required = false), or pass it in the query argument, which leaves a null out.", step.Name),
		Subject: tr.SrcRange.Ptr(),
	})
}

// placeholder finds a placeholder in a url as OpenAPI ({id}), Postman
// ({{id}}) or Express (/:id) write one. Compiled on first use, as
// hcl's uninterpolatedRef: a start pays nothing for it.
var placeholder = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{\{ *([A-Za-z_][A-Za-z0-9_-]*) *\}\}|\{ *([A-Za-z_][A-Za-z0-9_-]*) *\}|/:([A-Za-z_][A-Za-z0-9_-]*)(?:[/?#]|$)`)
})

// placeholderWarnings warns about placeholders in the literal text of a
// url that name a declared parameter: HCL sends them as they are written,
// and the parameter's value goes nowhere.
func (c *compiler) placeholderWarnings(expr hcl.Expression) {
	tmpl, ok := expr.(*hclsyntax.TemplateExpr)
	if !ok {
		return
	}
	for _, part := range tmpl.Parts {
		lit, ok := part.(*hclsyntax.LiteralValueExpr)
		if !ok || lit.Val.Type() != cty.String || lit.Val.IsNull() || !lit.Val.IsKnown() {
			continue
		}
		text := lit.Val.AsString()
		if !strings.ContainsAny(text, "{:") {
			continue
		}
		for _, m := range placeholder().FindAllStringSubmatchIndex(text, -1) {
			name := ""
			for g := 1; g <= 3; g++ {
				if m[2*g] >= 0 {
					name = text[m[2*g]:m[2*g+1]]
				}
			}
			if !c.params[name] || (m[0] > 0 && text[m[0]-1] == '$') { // $${id}: a literal ${id}, on purpose
				continue
			}
			start, end := m[0], m[0]+len(strings.TrimRight(text[m[0]:m[1]], "/?#"))
			if text[start] == '/' {
				start++
			}
			subject := lit.SrcRange
			if r := lit.SrcRange; r.End.Byte-r.Start.Byte == len(text) && r.Start.Line == r.End.Line {
				// No escape sequence: the value's offsets are the source's.
				subject.Start.Column, subject.Start.Byte = r.Start.Column+start, r.Start.Byte+start
				subject.End.Column, subject.End.Byte = r.Start.Column+end, r.Start.Byte+end
			}
			c.diags = append(c.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Placeholder without ${...}",
				Detail:   fmt.Sprintf("The url sends %s as it is written, not the value of the parameter %q: HCL puts a value in a string only with ${...}. Write ${param.%s} there.", text[start:end], name, name),
				Subject:  &subject,
			})
		}
	}
}

// envNote is, for a url built with env("NAME"), a sentence that names
// the variables: their values are redacted from diagnostics, so the url the
// message quotes shows (redacted) where the mistake may be.
func envNote(expr hcl.Expression) string {
	syntax, ok := expr.(hclsyntax.Expression)
	if !ok {
		return ""
	}
	var names []string
	_ = hclsyntax.VisitAll(syntax, func(n hclsyntax.Node) hcl.Diagnostics {
		call, ok := n.(*hclsyntax.FunctionCallExpr)
		if !ok || call.Name != "env" || len(call.Args) == 0 {
			return nil
		}
		if v, d := call.Args[0].Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() && !slices.Contains(names, v.AsString()) {
			names = append(names, v.AsString())
		}
		return nil
	})
	if len(names) == 0 {
		return ""
	}
	for i, n := range names {
		names[i] = fmt.Sprintf("env(%q)", n)
	}
	return fmt.Sprintf(" The url is built with %s: check that the variable, when set, holds a full URL such as \"https://api.example.com\" (diagnostics show its value as (redacted)).", strings.Join(names, " and "))
}

// build returns the URL of a call.
func (u *urlArg) build(ev *hcl.EvalContext) (*url.URL, error) {
	switch {
	case u.constant != nil:
		cp := *u.constant
		return &cp, nil
	case u.whole != nil:
		val, err := u.whole.eval(ev)
		if err != nil {
			return nil, err
		}
		s, err := valueString(val)
		if err != nil {
			return nil, fmt.Errorf("url: %v", err)
		}
		target, err := parseTarget(s)
		if err != nil {
			return nil, fmt.Errorf("url: %v", err)
		}
		return target, nil
	}

	var b strings.Builder
	b.Grow(urlGuess)         // one buffer for most urls, rather than growing from 8 bytes
	var paramRanges [][2]int // param text in the path
	for _, p := range u.parts {
		val, err := p.value.eval(ev)
		if err != nil {
			return nil, err
		}
		if val.IsNull() {
			if names := paramRefs(p.value.expr); len(names) > 0 {
				return nil, fmt.Errorf("url: the url needs %s, and it is null (absent); pass a value for it, or give the param a default", quoteNames(names))
			}
			return nil, errors.New("url: a value interpolated into the url is null; pass a value for the parameter, or give it a default")
		}
		s, err := valueString(val)
		if err != nil {
			return nil, fmt.Errorf("url: an interpolated value %v", err)
		}
		if !p.param {
			b.WriteString(s)
			continue
		}
		switch urlPosition(b.String()) {
		case inAuthority:
			return nil, errors.New("url: a parameter value would land in the scheme or host part of the url; parameters may only be used in the path or the query")
		case inPath:
			start := b.Len()
			b.WriteString(url.PathEscape(s))
			paramRanges = append(paramRanges, [2]int{start, b.Len()})
		default:
			b.WriteString(url.QueryEscape(s))
		}
	}
	target, err := parseTarget(escapeDotSegments(b.String(), paramRanges))
	if err != nil {
		return nil, fmt.Errorf("url: %v", err)
	}
	return target, nil
}

// escapeDotSegments percent-encodes the dots of "." and ".." path segments
// that come from parameter values, so that a value cannot climb the path.
func escapeDotSegments(s string, paramRanges [][2]int) string {
	if len(paramRanges) == 0 {
		return s
	}
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	start := i + 3 + strings.IndexAny(s[i+3:], "/?#")
	if start < i+3 || s[start] != '/' {
		return s
	}
	end := len(s)
	if j := strings.IndexAny(s[start:], "?#"); j >= 0 {
		end = start + j
	}
	if !paramDotSegment(s, start, end, paramRanges) {
		return s // the usual case: nothing to escape, nothing to copy
	}
	var b strings.Builder
	b.WriteString(s[:start])
	for pos := start; pos < end; {
		segEnd := pos + 1 + strings.IndexByte(s[pos+1:end], '/')
		if segEnd <= pos {
			segEnd = end
		}
		seg := s[pos+1 : segEnd] // without the leading '/'
		b.WriteByte('/')
		if (seg == "." || seg == "..") && fromParam(pos, segEnd, paramRanges) {
			seg = strings.ReplaceAll(seg, ".", "%2E")
		}
		b.WriteString(seg)
		pos = segEnd
	}
	b.WriteString(s[end:])
	return b.String()
}

// paramDotSegment reports whether the path s[start:end] has a "." or ".."
// segment that comes from a parameter value (see escapeDotSegments).
func paramDotSegment(s string, start, end int, paramRanges [][2]int) bool {
	for pos := start; pos < end; {
		segEnd := pos + 1 + strings.IndexByte(s[pos+1:end], '/')
		if segEnd <= pos {
			segEnd = end
		}
		if seg := s[pos+1 : segEnd]; (seg == "." || seg == "..") && fromParam(pos, segEnd, paramRanges) {
			return true
		}
		pos = segEnd
	}
	return false
}

// fromParam reports whether the segment after the slash at pos, up to
// segEnd, holds text of a parameter value.
func fromParam(pos, segEnd int, paramRanges [][2]int) bool {
	for _, r := range paramRanges {
		if r[0] < segEnd && pos+1 < r[1] {
			return true
		}
	}
	return false
}

// parseTarget parses a request URL and refuses schemes other than http and
// https.
func parseTarget(s string) (*url.URL, error) {
	if t := strings.TrimSpace(s); t != s && t != "" {
		return nil, errors.New("the url has spaces or line breaks before or after it; remove them")
	}
	u, err := url.Parse(s)
	if !strings.Contains(s, "://") && (err != nil || u.Scheme == "" || (u.Opaque != "" && u.Opaque[0] >= '0' && u.Opaque[0] <= '9')) {
		// "api.example.com/x", "localhost:8080/x" (read as the scheme
		// "localhost"), "127.0.0.1:8080/x" (a colon in the first path
		// segment): a URL written without its scheme.
		return nil, noScheme(s, false)
	}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("cannot parse the url: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		if u.Scheme == "" {
			return nil, errors.New("the url has no scheme; it must start with http:// or https://")
		}
		return nil, fmt.Errorf("the url scheme %q is not supported; the url must start with http:// or https://", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("the url has no host")
	}
	return u, nil
}

// noScheme is the error of a url written without http:// or https://
// in front; s is the url, or with partial its start up to a parameter.
func noScheme(s string, partial bool) error {
	msg := fmt.Sprintf("the url has no scheme: %q", s)
	if partial {
		msg = fmt.Sprintf("the url begins %q, with no scheme", s)
	}
	msg += "; it must start with http:// or https://"
	lower := strings.ToLower(s)
	if s != "" && s[0] != '/' && !strings.HasPrefix(lower, "http:") && !strings.HasPrefix(lower, "https:") && !strings.HasPrefix(lower, "http/") && !strings.HasPrefix(lower, "https/") {
		fixed := "https://" + s
		if partial {
			fixed += "..."
		}
		msg += fmt.Sprintf(", as in %q", fixed)
	}
	return errors.New(msg)
}
