package http

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/charset"
	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/suggest"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"golang.org/x/net/http/httpguts"
)

// mediaTypeShorthands are the media types meant by names a content_type
// is often written as.
var mediaTypeShorthands = map[string]string{
	"json":       "application/json",
	"xml":        "application/xml",
	"form":       "application/x-www-form-urlencoded",
	"urlencoded": "application/x-www-form-urlencoded",
	"text":       "text/plain",
	"plain":      "text/plain",
	"html":       "text/html",
	"csv":        "text/csv",
	"yaml":       "application/yaml",
}

// blockSchema is the schema of the http block. Attributes not listed
// here get HCL's "Unsupported argument" diagnostic with a suggestion.
var blockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "method"},
		{Name: "url", Required: true},
		{Name: "headers"},
		{Name: "query"},
		{Name: "body"},
		{Name: "content_type"},
		{Name: "timeout"},
		{Name: "max_response"},
		{Name: "max_redirects"},
		{Name: "charset"},
		{Name: "allow_hosts"},
		{Name: "deny_private"},
	},
	Blocks: append(slices.Clip(nestedBlocks), hcl.BlockHeaderSchema{Type: "token_exchange"}),
}

// compiler holds the state of one compile run.
type compiler struct {
	cc     *adapters.CompileContext
	ev     *hcl.EvalContext
	params map[string]bool // declared parameter names; nil when unknown
	diags  hcl.Diagnostics
}

// compile decodes an http block. It reports every problem it finds.
func compile(block *hcl.Block, cc *adapters.CompileContext) (adapters.Backend, hcl.Diagnostics) {
	if cc == nil {
		cc = &adapters.CompileContext{}
	}
	c := &compiler{cc: cc, ev: cc.Eval}
	if c.ev == nil {
		c.ev = &hcl.EvalContext{}
	}
	c.params = paramNames(cc, c.ev)

	content, diags := block.Body.Content(blockSchema)
	for _, d := range diags {
		if d.Summary == "Missing required argument" {
			// HCL points at an empty range; the block header says more.
			d.Subject = block.DefRange.Ptr()
			d.Detail += ` Add it to the http block, for example url = "https://api.example.com/v1/items".`
		}
	}
	c.diags = append(c.diags, diags...)
	attrs := content.Attributes

	h := &HTTP{
		method:       defaultMethod,
		timeout:      defaultTimeout,
		maxResponse:  defaultMaxResponse,
		maxRedirects: defaultMaxRedirects,
	}

	if a := attrs["method"]; a != nil {
		if v, ok := c.constant(a, cty.String, `a string such as "GET" or "POST"`); ok {
			h.method = c.method(a, v.AsString())
		}
	}
	if a := attrs["url"]; a != nil {
		h.url = c.compileURL(a)
		c.placeholderWarnings(a.Expr)
	}
	if a := attrs["headers"]; a != nil {
		h.headers = c.compileKV(a, true)
	}
	if a := attrs["query"]; a != nil {
		h.query = c.compileKV(a, false)
	}
	c.compileRequestBody(h, attrs)
	if a := attrs["timeout"]; a != nil {
		c.compileTimeout(h, a)
	}
	c.compileLimits(h, attrs)

	c.compilePolicy(h, attrs)
	h.tool = cc.ToolName
	blocks := c.nested(content.Blocks)
	c.compileUpstream(h, blocks)
	if b := blocks["cache"]; b != nil {
		c.compileCache(h, b, attrs)
	}
	if b := blocks["select"]; b != nil {
		c.compileSelect(h, b)
	}
	if b := blocks["token_exchange"]; b != nil {
		c.compileTokenExchange(h, b, attrs["headers"])
	}
	for _, name := range []string{"headers", "query"} {
		if a := attrs[name]; a != nil {
			for k := range adapters.MarkedSensitive(a.Expr) {
				if h.marked == nil {
					h.marked = map[string]bool{}
				}
				h.marked[k] = true
			}
			// sensitive(...) anywhere in it, where no key can be named
			// (merge, a conditional): its values are hidden at each call.
			h.sensitiveExprs = append(h.sensitiveExprs, adapters.SensitiveArgs(a.Expr)...)
		}
	}
	h.sensitiveParams = adapters.SensitiveNames(cc.Params)
	h.envCreds = adapters.EnvCredentialNames(block.Body)
	if c.diags.HasErrors() {
		return nil, c.diags
	}
	h.client = newClient(h)
	h.plain = h.plainExprs()
	return h, c.diags
}

// plainExprs reports whether every expression a call evaluates is plain
// (see value.plain).
func (h *HTTP) plainExprs() bool {
	vals := []*value{h.body}
	if h.url != nil {
		vals = append(vals, h.url.whole)
		for _, p := range h.url.parts {
			vals = append(vals, p.value)
		}
	}
	for _, kv := range []*kvArg{h.headers, h.query} {
		if kv != nil {
			vals = append(vals, kv.whole)
			for _, p := range kv.pairs {
				vals = append(vals, p.value)
			}
		}
	}
	for _, v := range vals {
		if !v.plain() {
			return false
		}
	}
	return true
}

// compileRequestBody reads body and content_type into h, with the
// warnings of a body sent with GET and a content_type without a body.
func (c *compiler) compileRequestBody(h *HTTP, attrs hcl.Attributes) {
	if a := attrs["body"]; a != nil {
		h.body = c.compileBody(a)
		if h.body != nil && (h.method == http.MethodHead || h.method == http.MethodOptions) {
			c.errorf(a.Expr.Range(), "Body not allowed",
				"A %s request carries no body. Remove the body argument, or use a method such as POST or PUT.", h.method)
		}
		if h.body != nil && attrs["method"] == nil {
			// The method was forgotten more often than a GET with a body
			// was meant: write method = "GET" for the APIs that take one.
			c.diags = append(c.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Body sent with GET",
				Detail:   "This block has a body and no method, so the body is sent with a GET request, which many servers and proxies ignore or refuse. Add method = \"POST\" (or \"PUT\", \"PATCH\"), or write method = \"GET\" if the API does take a body with GET.",
				Subject:  a.Expr.Range().Ptr(),
			})
		}
	}
	if a := attrs["content_type"]; a != nil {
		if v, ok := c.constant(a, cty.String, `a media type such as "application/json"`); ok {
			ct := v.AsString()
			mt, _, err := mime.ParseMediaType(ct)
			if err == nil && !strings.Contains(mt, "/") {
				// mime.ParseMediaType takes a lone token, as Content-
				// Disposition has; a media type is type/subtype.
				err = errors.New("no subtype")
			}
			if err != nil || !httpguts.ValidHeaderFieldValue(ct) {
				hint := ""
				if full, ok := mediaTypeShorthands[strings.ToLower(strings.TrimSpace(ct))]; ok {
					hint = fmt.Sprintf(" Did you mean %q?", full)
				}
				c.errorf(a.Expr.Range(), "Invalid content type",
					"%q is not a valid media type (type/subtype).%s Write one such as \"application/json\" or \"text/plain; charset=utf-8\".", ct, hint)
			} else {
				h.contentType = ct
			}
		}
		if attrs["body"] == nil {
			c.diags = append(c.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "content_type without body",
				Detail:   "The content_type argument only applies to a request body, and this block has none. Add a body argument or remove content_type.",
				Subject:  a.Expr.Range().Ptr(),
			})
		}
	}
}

// compileBody compiles the body argument. A constant null body means none.
func (c *compiler) compileBody(a *hcl.Attribute) *value {
	val, ok := c.eval(a.Expr)
	if !ok {
		return nil
	}
	if err := checkScalarType(val.Type(), false); err != nil {
		c.errorf(a.Expr.Range(), "Invalid body",
			"The body must be a string, not %s. Encode structured data with jsonencode(...), for example body = jsonencode({ city = param.city }).", attr.TypeName(val.Type()))
		return nil
	}
	v := newValue(a.Expr, val, "body")
	if v.known && v.val.IsNull() {
		return nil
	}
	return v
}

// compileLimits reads max_response, max_redirects and charset into h.
func (c *compiler) compileLimits(h *HTTP, attrs hcl.Attributes) {
	if a := attrs["max_response"]; a != nil {
		if n, ok := c.constantInt(a, "a number of bytes such as 1048576"); ok {
			if n < 1 || n > maxMaxResponse {
				c.errorf(a.Expr.Range(), "max_response out of range",
					"The max_response must be between 1 and %d bytes; %d is not. Choose a value in that range; the default is %d (10 MiB).", maxMaxResponse, n, defaultMaxResponse)
			} else {
				h.maxResponse = n
			}
		}
	}
	if a := attrs["max_redirects"]; a != nil {
		if n, ok := c.constantInt(a, "a whole number such as 5"); ok {
			if n < 0 || n > maxMaxRedirects {
				c.errorf(a.Expr.Range(), "max_redirects out of range",
					"The max_redirects must be between 0 and %d; %d is not. Use 0 to refuse every redirect.", maxMaxRedirects, n)
			} else {
				h.maxRedirects = int(n)
			}
		}
	}
	if a := attrs["charset"]; a != nil {
		if v, ok := c.constant(a, cty.String, `a charset name such as "gbk" or "utf-8"`); ok {
			if _, ok := charset.ByLabel(v.AsString()); !ok {
				c.errorf(a.Expr.Range(), "Unknown charset", "%s", charset.UnknownDetail(fmt.Sprintf("%q", v.AsString()), "the upstream sends"))
			} else {
				h.charset = v.AsString()
			}
		}
	}
}

// timeoutRange is what the timeout argument may be.
var timeoutRange = attr.DurationRange{Max: maxTimeout, Example: `"30s"`, Examples: `"10s", "500ms" or "1m30s"`}

// compileTimeout reads the timeout argument into h. A null timeout leaves the
// default.
func (c *compiler) compileTimeout(h *HTTP, a *hcl.Attribute) {
	v, diags, ok := attr.Fixed(a, c.ev, timeoutRange.Example)
	c.diags = append(c.diags, diags...)
	if !ok || v.IsNull() {
		return
	}
	d, diags := attr.Duration(a, v, timeoutRange)
	c.diags = append(c.diags, diags...)
	if !diags.HasErrors() {
		h.timeout = d
	}
}

// compilePolicy reads allow_hosts and deny_private, and checks a constant
// URL's host against the policies at once.
func (c *compiler) compilePolicy(h *HTTP, attrs hcl.Attributes) {
	if len(c.cc.Network.AllowHosts) > 0 || c.cc.Network.DenyPrivate {
		h.policies = append(h.policies, c.cc.Network)
	}
	var own netpolicy.Policy
	if a := attrs["allow_hosts"]; a != nil {
		if v, ok := c.constant(a, cty.List(cty.String), `a list of host names such as ["api.example.com", "*.example.org"]`); ok {
			hosts, diags := netpolicy.AllowHosts(a, v)
			c.diags = append(c.diags, diags...)
			own.AllowHosts = hosts
		}
	}
	if a := attrs["deny_private"]; a != nil {
		if v, ok := c.constant(a, cty.Bool, "true or false"); ok {
			own.DenyPrivate = v.True()
		}
	}
	if len(own.AllowHosts) > 0 || own.DenyPrivate {
		h.policies = append(h.policies, own)
	}
	if h.url != nil && h.url.constant != nil {
		if err := h.checkHost(h.url.constant.Hostname()); err != nil {
			c.errorf(attrs["url"].Expr.Range(), "Host not allowed", "%s. Add the host to allow_hosts, or correct the url.", err)
		}
	}
	if h.url != nil && h.url.whole != nil && refsParam(h.url.whole.expr) && !h.allowsHostsOnly() {
		c.errorf(attrs["url"].Expr.Range(), "URL chosen by a parameter",
			"The whole url is computed from a parameter, so the model calling the tool would choose the server the request goes to. Write the url as a quoted template with parameters only in the path or the query, for example \"https://api.example.com/items/${param.id}\", or, if the tool really must reach several servers, list them in allow_hosts (in this block or in the server block's network settings).")
	}
}

// allowsHostsOnly reports whether some policy limits the hosts the tool may
// reach to a list.
func (h *HTTP) allowsHostsOnly() bool {
	for _, p := range h.policies {
		if len(p.AllowHosts) > 0 {
			return true
		}
	}
	return false
}

// paramNames returns the names of the declared parameters, from the
// compile context or else from the type of "param" in the evaluation
// context; nil when neither tells.
func paramNames(cc *adapters.CompileContext, ev *hcl.EvalContext) map[string]bool {
	if cc.Params != nil {
		names := make(map[string]bool, len(cc.Params))
		for n := range cc.Params {
			names[n] = true
		}
		return names
	}
	if v, ok := ev.Variables[paramRoot]; ok && v.Type().IsObjectType() {
		names := map[string]bool{}
		for n := range v.Type().AttributeTypes() {
			names[n] = true
		}
		return names
	}
	return nil
}

// errorf appends an error diagnostic.
func (c *compiler) errorf(subject hcl.Range, summary, detail string, args ...any) {
	c.diags = append(c.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(detail, args...),
		Subject:  subject.Ptr(),
	})
}

// eval evaluates expr with the compile-time context and records its
// diagnostics. A reference to an undeclared parameter gets a diagnostic
// with a suggestion in place of HCL's plain "Unsupported attribute". ok is
// false when there were errors.
func (c *compiler) eval(expr hcl.Expression) (val cty.Value, ok bool) {
	var undeclared []hcl.Range
	if c.params != nil {
		for _, tr := range expr.Variables() {
			if tr.RootName() != paramRoot || len(tr) < 2 {
				continue
			}
			step, isAttr := tr[1].(hcl.TraverseAttr)
			if !isAttr || c.params[step.Name] {
				continue
			}
			who := "This tool has"
			if c.cc.ToolName != "" {
				who = fmt.Sprintf("Tool %q has", c.cc.ToolName)
			}
			c.errorf(tr.SourceRange(), "Reference to undeclared parameter",
				"%s no parameter named %q.%s Declare it in a param block, or correct the name.",
				who, step.Name, suggest.Hint(step.Name, slices.Sorted(maps.Keys(c.params))))
			undeclared = append(undeclared, step.SrcRange)
		}
	}
	val, diags := expr.Value(c.ev)
	for _, d := range diags {
		if d.Subject != nil && d.Summary == "Unsupported attribute" && overlapsAny(*d.Subject, undeclared) {
			continue
		}
		c.diags = append(c.diags, d)
	}
	return val, !diags.HasErrors() && len(undeclared) == 0
}

// overlapsAny reports whether r overlaps one of rs.
func overlapsAny(r hcl.Range, rs []hcl.Range) bool {
	for _, o := range rs {
		if r.Overlaps(o) {
			return true
		}
	}
	return false
}

// paramRefs returns the names of the parameters expr refers to, in
// order, each once.
func paramRefs(expr hcl.Expression) []string {
	var names []string
	for _, tr := range expr.Variables() {
		if tr.RootName() != paramRoot || len(tr) < 2 {
			continue
		}
		if step, ok := tr[1].(hcl.TraverseAttr); ok && !slices.Contains(names, step.Name) {
			names = append(names, step.Name)
		}
	}
	return names
}

// quoteNames names parameters for a message: `the argument "a"`, or
// `the arguments "a" or "b"`.
func quoteNames(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	if len(quoted) == 1 {
		return "the argument " + quoted[0]
	}
	return "the arguments " + strings.Join(quoted, " or ")
}

// refsParam reports whether expr references the call's arguments, or
// reads a claim of the caller's token, which is escaped and checked as
// an argument is.
func refsParam(expr hcl.Expression) bool {
	for _, tr := range expr.Variables() {
		if tr.RootName() == paramRoot {
			return true
		}
	}
	return adapters.UsesClaims(expr)
}

// constant evaluates an attribute that must not depend on the arguments and
// converts it to ty. want describes the expected value for messages. ok is
// false when the attribute is null (meaning: use the default) or wrong; a
// wrong one has been reported.
func (c *compiler) constant(a *hcl.Attribute, ty cty.Type, want string) (cty.Value, bool) {
	if refsParam(a.Expr) {
		c.diags = append(c.diags, attr.NotConstantError(a.Expr.Range(), fmt.Sprintf(
			"The %s argument is fixed when the config loads, so it cannot refer to param. Replace the reference with %s.", a.Name, want)))
		return cty.NilVal, false
	}
	val, ok := c.eval(a.Expr)
	if !ok {
		return cty.NilVal, false
	}
	val, _ = val.UnmarkDeep()
	if !val.IsWhollyKnown() {
		c.diags = append(c.diags, attr.NotConstantError(a.Expr.Range(), fmt.Sprintf(
			"The value of %s must be known when the config loads. Replace the expression with %s.", a.Name, want)))
		return cty.NilVal, false
	}
	if val.IsNull() {
		return cty.NilVal, false
	}
	conv, err := convert.Convert(val, ty)
	if err != nil {
		hint := ""
		if a.Name == "max_response" {
			hint = attr.SizeHint(a.Name, val)
		}
		c.errorf(a.Expr.Range(), "Incorrect attribute value type",
			"The %s argument must be %s, not %s.%s", a.Name, want, attr.TypeName(val.Type()), hint)
		return cty.NilVal, false
	}
	return conv, true
}

// constantInt is constant for whole numbers.
func (c *compiler) constantInt(a *hcl.Attribute, want string) (int64, bool) {
	v, ok := c.constant(a, cty.Number, want)
	if !ok {
		return 0, false
	}
	bf := v.AsBigFloat()
	n, acc := bf.Int64()
	if !bf.IsInt() || acc != big.Exact {
		c.errorf(a.Expr.Range(), "Whole number required",
			"The %s argument must be %s; fractions are not allowed.", a.Name, want)
		return 0, false
	}
	return n, true
}

// method validates an HTTP method, accepting any letter case, and returns
// it in upper case.
func (c *compiler) method(a *hcl.Attribute, m string) string {
	up := strings.ToUpper(strings.TrimSpace(m))
	for _, known := range methods {
		if up == known {
			return up
		}
	}
	c.errorf(a.Expr.Range(), "Invalid HTTP method",
		"%q is not an HTTP method toolhost sends.%s Use one of %s.", m, suggest.Hint(up, methods), strings.Join(methods, ", "))
	return defaultMethod
}
