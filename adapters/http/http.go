package http

import (
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	levdist "github.com/agext/levenshtein"
	"github.com/go-resty/resty/v2"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/tidwall/gjson"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/charset"
	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/redact"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"golang.org/x/net/http/httpguts"
)

func init() {
	adapters.Register(adapters.Kind{
		Name:    "http",
		Summary: "send an HTTP request built from the arguments and return the response body",
		Compile: compile,
	})
}

// Defaults and limits of the http block.
const (
	defaultMethod       = http.MethodGet
	defaultTimeout      = 30 * time.Second
	maxTimeout          = 10 * time.Minute
	defaultMaxResponse  = 10 << 20 // 10 MiB
	maxMaxResponse      = 1 << 30  // 1 GiB: the body is held in memory
	defaultMaxRedirects = 5
	maxMaxRedirects     = 20
	defaultContentType  = "application/json"
	errorSnippetBytes   = 200
	userAgent           = "toolhost"
	paramRoot           = "param"
)

// methods are the methods an http block may use.
var methods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete, http.MethodOptions,
}

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
}

// sharedTransport is shared by every http backend so that connections to one
// upstream are reused across tools and calls.
var sharedTransport = &http.Transport{
	Proxy: http.ProxyFromEnvironment,
	DialContext: (&net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
	}).DialContext,
	ForceAttemptHTTP2:     true,
	MaxIdleConns:          256,
	MaxIdleConnsPerHost:   64,
	IdleConnTimeout:       90 * time.Second,
	TLSHandshakeTimeout:   10 * time.Second,
	ExpectContinueTimeout: time.Second,
}

// HTTP is the backend of an http block: each call sends one HTTP request
// built from the block's expressions and returns the response body, decoded
// to UTF-8.
//
// Expressions that do not depend on the call's arguments are evaluated once
// at compile time. Parameter values interpolated into a quoted url template
// are escaped for the place they land in (path segment or query), and may
// never land in the scheme or host.
type HTTP struct {
	method       string
	url          *urlArg
	headers      *kvArg
	query        *kvArg
	body         *value // nil: no body
	contentType  string // content_type; "" for the default
	timeout      time.Duration
	maxResponse  int64
	maxRedirects int
	charset      string // charset label overriding the response's; "" when unset
	// policies must all allow a host: the server block's and the block's.
	policies []netpolicy.Policy
	// sensitiveParams are the parameters whose values are redacted from
	// error messages.
	sensitiveParams []string
	// marked are header and query names whose values call sensitive().
	marked map[string]bool
	client *resty.Client
	// used is set by the first call: Close of a backend that never made a
	// request has no connections to close, and must not make net/http
	// build the transport's HTTP/2 support just to close nothing.
	used atomic.Bool
}

// checkHost applies every network policy to host.
func (h *HTTP) checkHost(host string) error {
	for _, p := range h.policies {
		if err := p.CheckHost(host); err != nil {
			return err
		}
	}
	return nil
}

func (h *HTTP) denyPrivate() bool {
	for _, p := range h.policies {
		if p.DenyPrivate {
			return true
		}
	}
	return false
}

// Call sends the request. The call's context cancels it; the block's timeout
// bounds it. Errors are short, name the host, and never contain header
// values.
func (h *HTTP) Call(ctx context.Context, in *adapters.Input) (*adapters.Output, error) {
	secrets := &callSecrets{}
	out, err := h.call(ctx, in, secrets)
	if err != nil {
		return nil, redact.Error(err, secrets.values())
	}
	out.Secrets = secrets.values
	return out, nil
}

// callSecrets collects what must not appear in a call's messages: the
// values of parameters marked sensitive, and the URL, headers and query
// parameters, whose credentials (see redact.URLSecrets and redact.Named) are
// worked out once, when a message needs them.
type callSecrets struct {
	known          []string
	target         *url.URL
	query, headers []kvEntry
	marked         map[string]bool
	once           sync.Once
	all            []string
}

// values returns the secrets.
func (s *callSecrets) values() []string {
	s.once.Do(func() {
		s.all = s.known
		if s.target != nil {
			s.all = append(s.all, redact.URLSecrets(s.target)...)
		}
		for _, e := range slices.Concat(s.query, s.headers) {
			s.all = append(s.all, redact.Named(e.name, e.values, s.marked[e.name])...)
		}
	})
	return s.all
}

// urlValues returns the secrets a message that quotes the URL needs
// beyond what Redact finds there by itself (see messageSecrets): the
// values of parameters marked sensitive and of query parameters marked
// so. Header values are not in the URL, nor are the credentials inside
// query values, which appear in the URL encoded.
func (s *callSecrets) urlValues() []string {
	out := s.known
	for _, e := range s.query {
		if s.marked[e.name] {
			out = append(out, e.values...)
		}
	}
	return out
}

// call sends the request. It adds to secrets what must not appear in an
// error message (see callSecrets).
func (h *HTTP) call(ctx context.Context, in *adapters.Input, secrets *callSecrets) (*adapters.Output, error) {
	ev := &hcl.EvalContext{}
	if in != nil && in.Eval != nil {
		ev = in.Eval
	}
	secrets.known = adapters.SensitiveParamValues(ev, h.sensitiveParams)
	ev, done := adapters.WithBudget(ctx, ev, h.timeout)
	defer done()
	secrets.marked = h.marked

	target, err := h.url.build(ev)
	if err != nil {
		return nil, err
	}
	secrets.target = target
	if err := h.checkHost(target.Hostname()); err != nil {
		return nil, err
	}
	if h.query != nil {
		entries, err := h.query.eval(ev)
		if err != nil {
			return nil, err
		}
		q := url.Values{}
		for _, e := range entries {
			q[e.name] = append(q[e.name], e.values...)
			secrets.query = append(secrets.query, e)
		}
		if enc := q.Encode(); enc != "" {
			if target.RawQuery == "" {
				target.RawQuery = enc
			} else {
				target.RawQuery += "&" + enc
			}
		}
	}
	header := http.Header{}
	if h.headers != nil {
		entries, err := h.headers.eval(ev)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if err := checkHeaderName(e.name); err != nil {
				return nil, err
			}
			secrets.headers = append(secrets.headers, e)
			for _, v := range e.values {
				if err := checkHeaderValue(e.name, v); err != nil {
					return nil, err
				}
				header.Add(e.name, v)
			}
		}
	}
	var body *string
	if h.body != nil {
		val, err := h.body.eval(ev)
		if err != nil {
			return nil, err
		}
		if !val.IsNull() {
			s, err := valueString(val)
			if err != nil {
				return nil, fmt.Errorf("body: %v", err)
			}
			body = &s
		}
	}

	host := target.Host
	callCtx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()

	h.used.Store(true)
	req := h.client.R().SetContext(callCtx).SetDoNotParseResponse(true)
	req.Header = header
	if body != nil && *body != "" {
		switch {
		case h.contentType != "":
			req.SetHeader("Content-Type", h.contentType)
		case req.Header.Get("Content-Type") == "":
			req.SetHeader("Content-Type", defaultContentType)
		}
		req.SetBody(*body)
	}
	resp, err := req.Execute(h.method, target.String())
	if err != nil {
		return nil, h.requestError(err, host, ctx, callCtx)
	}
	raw := resp.RawBody()
	if raw == nil {
		return nil, fmt.Errorf("request to %s failed: no response", host)
	}
	defer raw.Close()
	askedEncoding := header.Get("Accept-Encoding") != "" // the transport decodes gzip only when it asked
	content, err := decodeContent(raw, resp.Header().Get("Content-Encoding"), host, askedEncoding)
	if err != nil {
		if code := resp.StatusCode(); code >= 200 && code <= 299 {
			return nil, err
		}
		content = strings.NewReader("") // the status says what happened
	}
	data, err := io.ReadAll(io.LimitReader(content, h.maxResponse+1))
	if err != nil {
		var corrupt flate.CorruptInputError
		if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt) {
			return nil, notGzip(host, err, askedEncoding)
		}
		if resp.RawResponse.Uncompressed && len(data) == 0 && errors.Is(err, io.ErrUnexpectedEOF) && h.contextError(host, ctx, callCtx) == nil {
			// The transport's gzip reader found less than a gzip header:
			// a short body that is not gzip at all, not one cut off.
			return nil, notGzip(host, errors.New("the body is shorter than a gzip header"), askedEncoding)
		}
		if cerr := h.contextError(host, ctx, callCtx); cerr == nil && errors.Is(err, io.ErrUnexpectedEOF) {
			declared := ""
			if n := resp.RawResponse.ContentLength; n > 0 && content == io.Reader(raw) { // not decoded bytes
				declared = fmt.Sprintf(" (Content-Length %d, %d bytes came)", n, len(data))
			}
			return nil, fmt.Errorf("the response from %s was cut off: the connection closed before the whole body arrived%s; try again, and if it keeps happening, check the upstream", host, declared)
		}
		return nil, h.readError(err, host, ctx, callCtx)
	}
	over := int64(len(data)) > h.maxResponse
	if over {
		data = data[:h.maxResponse]
	}

	if in != nil && in.Report != nil {
		in.Report.Log("debug", redact.Redact(fmt.Sprintf("%s %s: HTTP %d, %d bytes", h.method, target.Redacted(), resp.StatusCode(), len(data)), secrets.urlValues()))
	}

	ct := resp.Header().Get("Content-Type")
	mediaType, label := parseContentType(ct)
	if h.charset != "" {
		label = h.charset
	}
	if bom := bomCharset(data); bom != "" {
		// A byte order mark says what the text is, whatever the label
		// (as browsers read it): a JSON file saved by Windows PowerShell 5
		// is UTF-16 and served with no charset, or a wrong one.
		label = bom
	}
	if mediaType == "application/octet-stream" && !over && !adapters.JSONTooDeep(data) && gjson.ValidBytes(data) {
		// "Some bytes": a server (or a static file server that cannot
		// tell) labels its JSON generically. JSON it is. (Nesting too deep
		// for JSON would overflow the validator's stack: bytes it stays.)
		mediaType = "application/json"
	}
	if binaryType(mediaType) && h.charset == "" {
		if code := resp.StatusCode(); code >= 200 && code <= 299 {
			if over {
				return nil, fmt.Errorf("response body larger than %d bytes (max_response)", h.maxResponse)
			}
			return &adapters.Output{Body: data, MIMEType: mediaType, Binary: true}, nil
		}
	}

	if code := resp.StatusCode(); code < 200 || code > 299 {
		msg := "upstream returned HTTP " + resp.Status()
		if resp.Status() == "" {
			msg = fmt.Sprintf("upstream returned HTTP %d", code)
		}
		if snippet := errorSnippet(data, label, over, secrets.values()); snippet != "" {
			msg += ": " + snippet
		}
		return nil, errors.New(msg)
	}
	if over {
		return nil, fmt.Errorf("response body larger than %d bytes (max_response)", h.maxResponse)
	}
	decoded, err := decodeCharset(data, label)
	if err != nil {
		return nil, err
	}
	if textualType(mediaType) && !utf8.Valid(decoded) {
		declared := "its Content-Type declares no other charset"
		if label != "" {
			declared = fmt.Sprintf("its Content-Type declares charset %s, which it does not hold to", label)
		}
		return nil, fmt.Errorf("the %s response is not valid UTF-8, and %s; if the upstream sends GBK, GB18030, Big5 or similar, set charset = \"gbk\" (or the right one) in the http block", mediaName(mediaType), declared)
	}
	return &adapters.Output{Body: decoded, MIMEType: mediaType}, nil
}

// decodeContent undoes the response's Content-Encoding. The transport
// asks for gzip and decodes it itself, unless the tool's headers set
// Accept-Encoding (copied from a browser or curl, say): then the body comes
// as the upstream encoded it. gzip is decoded here too, so that max_response
// counts decoded bytes; another encoding is an error that says to remove the
// header, never compressed bytes read as text.
func decodeContent(raw io.Reader, encoding, host string, askedEncoding bool) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return raw, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(raw)
		switch {
		case err == io.EOF:
			return strings.NewReader(""), nil // no body, as HEAD and 204 have
		case err != nil:
			return nil, notGzip(host, err, askedEncoding)
		}
		return zr, nil
	}
	return nil, fmt.Errorf("the response from %s is compressed with %q (Content-Encoding), which toolhost does not decode; remove Accept-Encoding from headers: toolhost asks for gzip itself and decodes it", host, encoding)
}

// notGzip is the error of a body that says Content-Encoding gzip and
// is not gzip. askedEncoding is set when the tool's headers set
// Accept-Encoding, which may be why the upstream compressed.
func notGzip(host string, err error, askedEncoding bool) error {
	fix := "the upstream labels a body it did not compress; check the upstream"
	if askedEncoding {
		fix = "remove Accept-Encoding from headers, or check the upstream"
	}
	return fmt.Errorf("the response from %s says Content-Encoding gzip but is not valid gzip (%v); %s", host, err, fix)
}

// binaryType reports whether a media type is bytes to pass on as they
// are: images, sounds, video, PDFs, archives.
func binaryType(mediaType string) bool {
	switch {
	case strings.HasPrefix(mediaType, "image/") && mediaType != "image/svg+xml",
		strings.HasPrefix(mediaType, "audio/"), strings.HasPrefix(mediaType, "video/"),
		mediaType == "application/octet-stream", mediaType == "application/pdf",
		mediaType == "application/zip", mediaType == "application/gzip":
		return true
	}
	return false
}

// textualType reports whether a media type is text, whose body must decode to
// UTF-8. An undeclared type counts as text: toolhost reads it as text.
func textualType(mediaType string) bool {
	switch {
	case mediaType == "", strings.HasPrefix(mediaType, "text/"),
		mediaType == "application/json", strings.HasSuffix(mediaType, "+json"),
		mediaType == "application/xml", strings.HasSuffix(mediaType, "+xml"),
		mediaType == "application/javascript", mediaType == "application/x-www-form-urlencoded":
		return true
	}
	return false
}

func mediaName(mediaType string) string {
	if mediaType == "" {
		return "upstream's"
	}
	return mediaType
}

// Close closes the idle connections of the backend's transport. Calls
// already running finish. The transport is shared by the http backends, so
// the others reconnect when they need to.
func (h *HTTP) Close() error {
	if h.used.Load() {
		h.client.GetClient().CloseIdleConnections()
	}
	return nil
}

// newClient builds the resty client of a backend. It does no I/O.
func newClient(h *HTTP) *resty.Client {
	hc := &http.Client{Transport: transportFor(netpolicy.Policy{DenyPrivate: h.denyPrivate()})} // no cookie jar: calls share no state
	return resty.NewWithClient(hc).
		SetLogger(discardLogger{}).
		SetAllowGetMethodPayload(true).
		SetHeader("User-Agent", userAgent).
		SetRedirectPolicy(resty.RedirectPolicyFunc(h.checkRedirect))
}

// redirectError is a refused redirect. Its message is final.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

// redirectSafeHeaders are the headers kept when a redirect leaves the
// original host and port; the others (API keys and the like) are dropped.
var redirectSafeHeaders = map[string]bool{
	"Accept":          true,
	"Accept-Encoding": true,
	"Accept-Language": true,
	"User-Agent":      true,
}

// checkRedirect enforces max_redirects, refuses any change of scheme (http
// to https included: the author writes the final scheme in the url), and
// drops the
// configured headers when the redirect goes to another host or port.
func (h *HTTP) checkRedirect(req *http.Request, via []*http.Request) error {
	host := via[0].URL.Host
	if len(via) > h.maxRedirects {
		if h.maxRedirects == 0 {
			return &redirectError{fmt.Sprintf("%s answered with a redirect and max_redirects is 0; raise max_redirects or use the final URL", host)}
		}
		return &redirectError{fmt.Sprintf("request to %s was redirected more than %d times (max_redirects)", host, h.maxRedirects)}
	}
	switch req.URL.Scheme {
	case "http", "https":
		if from := via[len(via)-1].URL.Scheme; !strings.EqualFold(from, req.URL.Scheme) {
			return &redirectError{fmt.Sprintf("request to %s was redirected from %s to %s (%s); redirects never change the scheme. Write the final URL, with its scheme, in the url argument", host, from, req.URL.Scheme, req.URL.Scheme+"://"+req.URL.Host)}
		}
	default:
		return &redirectError{fmt.Sprintf("request to %s was redirected to a %q URL; only http and https are followed", host, req.URL.Scheme)}
	}
	if err := h.checkHost(req.URL.Hostname()); err != nil {
		return &redirectError{fmt.Sprintf("request to %s was redirected to %s, which is not in allow_hosts; the redirect was refused", host, req.URL.Hostname())}
	}
	if origin(req.URL) != origin(via[0].URL) {
		for name := range req.Header {
			if !redirectSafeHeaders[name] {
				req.Header.Del(name)
			}
		}
	}
	return nil
}

// origin is the host and port a URL reaches, lower-cased, with the
// scheme's default port filled in: a redirect to another port of the same
// host reaches another service, so it leaves the original host as much as
// one to another name does.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// requestError turns an error of sending the request into a short message
// naming the host.
func (h *HTTP) requestError(err error, host string, parent, callCtx context.Context) error {
	var re *redirectError
	if errors.As(err, &re) {
		return re
	}
	var pe *netpolicy.Error
	if errors.As(err, &pe) {
		return pe
	}
	if cerr := h.contextError(host, parent, callCtx); cerr != nil {
		return cerr
	}
	// After a redirect the request that failed went elsewhere: the
	// messages name where, and where it came from.
	dialed, via := host, ""
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" && !strings.EqualFold(u.Host, host) {
			dialed, via = u.Host, " (redirected from "+host+")"
		}
	}
	host = dialed + via
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	var netErr net.Error
	switch {
	case errors.As(err, &dnsErr):
		name := dialed
		if h, _, err := net.SplitHostPort(dialed); err == nil {
			name = h
		}
		return fmt.Errorf("could not resolve host %s%s; check the url", name, via)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("connection to %s refused; is the service running?", host)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("connection to %s was closed unexpectedly", host)
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr):
		return fmt.Errorf("TLS certificate of %s was not accepted: %v", host, innermost(err))
	case errors.As(err, &recErr):
		return fmt.Errorf("TLS handshake with %s failed; does the server speak https?", host)
	case errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Errorf("connecting to %s timed out", host)
	}
	return fmt.Errorf("request to %s failed: %v", host, innermost(err))
}

// readError turns an error of reading the response body into a short
// message naming the host.
func (h *HTTP) readError(err error, host string, parent, callCtx context.Context) error {
	if cerr := h.contextError(host, parent, callCtx); cerr != nil {
		return cerr
	}
	return fmt.Errorf("reading the response from %s failed: %v", host, innermost(err))
}

// contextError reports a canceled call or an expired timeout, or nil.
func (h *HTTP) contextError(host string, parent, callCtx context.Context) error {
	switch {
	case parent.Err() != nil:
		if errors.Is(parent.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("request to %s was abandoned: the call's deadline passed", host)
		}
		return fmt.Errorf("request to %s was canceled", host)
	case callCtx.Err() != nil:
		return fmt.Errorf("request to %s timed out after %s (timeout)", host, h.timeout)
	}
	return nil
}

// innermost returns the message of the innermost wrapped error, which names
// the cause without the chain of operations around it.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// discardLogger silences resty: its messages could contain request data.
type discardLogger struct{}

func (discardLogger) Errorf(string, ...any)        {}
func (discardLogger) Warnf(string, ...interface{}) {}
func (discardLogger) Debugf(string, ...any)        {}

// ---- compile ----

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
	if a := attrs["timeout"]; a != nil {
		if v, ok := c.constant(a, cty.String, `a duration string such as "10s" or "1m30s"`); ok {
			d, err := time.ParseDuration(v.AsString())
			switch {
			case err != nil:
				c.errorf(a.Expr.Range(), "Invalid timeout",
					"%q is not a duration. Write a number with a unit, such as \"10s\", \"500ms\" or \"1m30s\" (units are ms, s, m and h).%s", v.AsString(), adapters.DurationHint(v.AsString()))
			case d <= 0 || d > maxTimeout:
				c.errorf(a.Expr.Range(), "Timeout out of range",
					"The timeout must be more than zero and at most %s; %s is not. Choose a value in that range, such as \"30s\".", maxTimeout, d)
			default:
				h.timeout = d
			}
		}
	}
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

	c.compilePolicy(h, attrs)
	for _, name := range []string{"headers", "query"} {
		if a := attrs[name]; a != nil {
			for k := range adapters.MarkedSensitive(a.Expr) {
				if h.marked == nil {
					h.marked = map[string]bool{}
				}
				h.marked[k] = true
			}
		}
	}
	h.sensitiveParams = adapters.SensitiveNames(cc.Params)
	if c.diags.HasErrors() {
		return nil, c.diags
	}
	h.client = newClient(h)
	return h, c.diags
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
			for it := v.ElementIterator(); it.Next(); {
				i, e := it.Element()
				if e.IsNull() || !netpolicy.ValidHostPattern(e.AsString()) {
					entry := "null"
					if !e.IsNull() {
						entry = e.AsString()
					}
					c.errorf(netpolicy.ListElementRange(a.Expr, i), "Invalid allow_hosts entry", "%s", netpolicy.InvalidHostPatternDetail(entry))
					continue
				}
				own.AllowHosts = append(own.AllowHosts, e.AsString())
			}
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
				who, step.Name, c.suggest(step.Name))
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

// suggest returns ` Did you mean "x"?` for the declared parameter closest to
// name, or "".
func (c *compiler) suggest(name string) string {
	names := make([]string, 0, len(c.params))
	for n := range c.params {
		names = append(names, n)
	}
	sort.Strings(names)
	best, bestDist := "", 3
	for _, n := range names {
		if d := levdist.Distance(name, n, nil); d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", best)
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

// refsParam reports whether expr references the call's arguments.
func refsParam(expr hcl.Expression) bool {
	for _, tr := range expr.Variables() {
		if tr.RootName() == paramRoot {
			return true
		}
	}
	return false
}

// constant evaluates an attribute that must not depend on the arguments and
// converts it to ty. want describes the expected value for messages. ok is
// false when the attribute is null (meaning: use the default) or wrong; a
// wrong one has been reported.
func (c *compiler) constant(a *hcl.Attribute, ty cty.Type, want string) (cty.Value, bool) {
	if refsParam(a.Expr) {
		c.errorf(a.Expr.Range(), "Argument must be constant",
			"The %s argument is fixed when the config loads, so it cannot refer to param. Replace the reference with %s.", a.Name, want)
		return cty.NilVal, false
	}
	val, ok := c.eval(a.Expr)
	if !ok {
		return cty.NilVal, false
	}
	val, _ = val.UnmarkDeep()
	if !val.IsWhollyKnown() {
		c.errorf(a.Expr.Range(), "Argument must be constant",
			"The value of %s must be known when the config loads. Replace the expression with %s.", a.Name, want)
		return cty.NilVal, false
	}
	if val.IsNull() {
		return cty.NilVal, false
	}
	conv, err := convert.Convert(val, ty)
	if err != nil {
		hint := ""
		if a.Name == "max_response" {
			hint = adapters.SizeHint(a.Name, val)
		}
		c.errorf(a.Expr.Range(), "Incorrect attribute value type",
			"The %s argument must be %s, not %s.%s", a.Name, want, adapters.TypeName(val.Type()), hint)
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
	suggestion := ""
	for _, known := range methods {
		if levdist.Distance(up, known, nil) <= 2 {
			suggestion = fmt.Sprintf(" Did you mean %q?", known)
			break
		}
	}
	c.errorf(a.Expr.Range(), "Invalid HTTP method",
		"%q is not an HTTP method toolhost sends.%s Use one of %s.", m, suggestion, strings.Join(methods, ", "))
	return defaultMethod
}

// compileBody compiles the body argument. A constant null body means none.
func (c *compiler) compileBody(a *hcl.Attribute) *value {
	val, ok := c.eval(a.Expr)
	if !ok {
		return nil
	}
	if err := checkScalarType(val.Type(), false); err != nil {
		c.errorf(a.Expr.Range(), "Invalid body",
			"The body must be a string, not %s. Encode structured data with jsonencode(...), for example body = jsonencode({ city = param.city }).", adapters.TypeName(val.Type()))
		return nil
	}
	v := newValue(a.Expr, val, "body")
	if v.known && v.val.IsNull() {
		return nil
	}
	return v
}

// ---- values ----

// value is an expression evaluated once when constant, else per call.
type value struct {
	expr  hcl.Expression
	what  string // for messages: "url", `header "Accept"`, ...
	known bool
	val   cty.Value
}

// newValue wraps expr whose compile-time value is val.
func newValue(expr hcl.Expression, val cty.Value, what string) *value {
	v := &value{expr: expr, what: what}
	if !refsParam(expr) && val.IsWhollyKnown() {
		v.known = true
		v.val, _ = val.UnmarkDeep()
	}
	return v
}

// eval returns the value for a call.
func (v *value) eval(ev *hcl.EvalContext) (cty.Value, error) {
	if v.known {
		return v.val, nil
	}
	val, diags := v.expr.Value(ev)
	if diags.HasErrors() {
		return cty.NilVal, diagsError(v.what, diags)
	}
	val, _ = val.UnmarkDeep()
	if !val.IsWhollyKnown() {
		return cty.NilVal, fmt.Errorf("%s: the value is not known", v.what)
	}
	return val, nil
}

// diagsError turns evaluation errors into one error.
func diagsError(what string, diags hcl.Diagnostics) error {
	return fmt.Errorf("evaluating %s: %s", what, adapters.EvalMessage(diags))
}

// checkScalarType reports whether values of ty can become text: strings,
// numbers and bools, and with lists also lists, sets and tuples of them.
func checkScalarType(ty cty.Type, lists bool) error {
	switch {
	case ty == cty.DynamicPseudoType, ty.IsPrimitiveType():
		return nil
	case lists && (ty.IsListType() || ty.IsSetType()):
		return checkScalarType(ty.ElementType(), false)
	case lists && ty.IsTupleType():
		for _, et := range ty.TupleElementTypes() {
			if err := checkScalarType(et, false); err != nil {
				return err
			}
		}
		return nil
	}
	if lists {
		return fmt.Errorf("must be a string, number, bool or a list of them, not %s", adapters.TypeName(ty))
	}
	return fmt.Errorf("must be a string, number or bool, not %s", adapters.TypeName(ty))
}

// valueString converts a known, non-null primitive value to a string.
func valueString(v cty.Value) (string, error) {
	v, _ = v.UnmarkDeep()
	if !v.Type().IsPrimitiveType() && v.Type() != cty.DynamicPseudoType {
		return "", fmt.Errorf("must be a string, number or bool, not %s", adapters.TypeName(v.Type()))
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", fmt.Errorf("must be a string, number or bool, not %s", adapters.TypeName(v.Type()))
	}
	if s.IsNull() || !s.IsKnown() {
		return "", errors.New("the value is null")
	}
	return s.AsString(), nil
}

// valueStrings converts a value to the strings it stands for: none for
// null, one for a primitive, one per non-null element for a list when lists
// is set.
func valueStrings(v cty.Value, lists bool) ([]string, error) {
	v, _ = v.UnmarkDeep()
	if v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	if lists && (ty.IsListType() || ty.IsSetType() || ty.IsTupleType()) {
		var out []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.IsNull() {
				continue
			}
			s, err := valueString(e)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	if err := checkScalarType(ty, lists); err != nil {
		return nil, err
	}
	s, err := valueString(v)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}

// ---- headers and query ----

// kvArg is the headers or query argument: either an object constructor
// with constant keys, whose values are compiled one by one, or any other
// expression yielding a map, evaluated whole.
type kvArg struct {
	header bool // headers (one value each) rather than query (lists allowed)
	pairs  []kvPair
	whole  *value
}

// kvPair is one entry of an object constructor.
type kvPair struct {
	name  string
	value *value
}

// kvEntry is an evaluated entry.
type kvEntry struct {
	name   string
	values []string
}

// compileKV compiles a headers (header set) or query argument.
func (c *compiler) compileKV(a *hcl.Attribute, header bool) *kvArg {
	kv := &kvArg{header: header}
	what := "query parameter"
	if header {
		what = "header"
	}
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		// Not an object constructor: a map-valued expression.
		if header && refsParam(a.Expr) {
			// The names would be the model's: Host (another virtual host
			// behind an allowed one), Cookie, X-Forwarded-For...
			c.errorf(a.Expr.Range(), "Header names must be constant",
				"These headers are computed from parameters, so the model calling the tool would choose the header names (Host, Cookie, X-Forwarded-For, ...). "+
					"Write headers as an object with literal names, and use param in the values, such as headers = { X-Filter = param.filter }.")
			return kv
		}
		val, ok := c.eval(a.Expr)
		if !ok {
			return kv
		}
		ty := val.Type()
		if !(ty == cty.DynamicPseudoType || ty.IsObjectType() || ty.IsMapType()) {
			c.errorf(a.Expr.Range(), "Incorrect attribute value type",
				"The %s argument must be a map of %s values, such as { Accept = \"application/json\" }, not %s.", a.Name, what, adapters.TypeName(ty))
			return kv
		}
		kv.whole = newValue(a.Expr, val, a.Name)
		if kv.whole.known {
			if _, err := kv.evalWhole(kv.whole.val); err != nil {
				c.errorf(a.Expr.Range(), "Invalid "+a.Name, "%s Correct the %s argument.", sentence(err.Error()), a.Name)
			}
		}
		return kv
	}
	seen := map[string]hcl.Range{}
	for _, p := range pairs {
		if refsParam(p.Key) {
			detail := fmt.Sprintf("In an object written out, a %s name is fixed when the config loads, so it cannot refer to param. Write the name literally, and use param in the value.", what)
			if !header {
				detail += " To let the caller choose the names, give a map parameter whole, as in query = param.filters: the caller then picks every name, and may repeat one the tool sets."
			}
			c.errorf(p.Key.Range(), "Name must be constant", "%s", detail)
			continue
		}
		kval, ok := c.eval(p.Key)
		if !ok {
			continue
		}
		kval, _ = kval.UnmarkDeep()
		ks, err := convert.Convert(kval, cty.String)
		if err != nil || !ks.IsWhollyKnown() || ks.IsNull() {
			c.errorf(p.Key.Range(), "Invalid "+what+" name",
				"A %s name must be a string known when the config loads. Write the name literally, quoted if it contains a dash: \"X-Api-Key\" = ...", what)
			continue
		}
		name := ks.AsString()
		key := name
		if header {
			if !httpguts.ValidHeaderFieldName(name) {
				c.errorf(p.Key.Range(), "Invalid header name",
					"%q is not a valid header name: header names are letters, digits and !#$%%&'*+-.^_`|~ only. Correct the name.", name)
				continue
			}
			key = http.CanonicalHeaderKey(name)
		}
		if prev, dup := seen[key]; dup {
			c.errorf(p.Key.Range(), "Duplicate "+what,
				"The %s %q is already set at %s:%d:%d. Remove one of them.", what, name, prev.Filename, prev.Start.Line, prev.Start.Column)
			continue
		}
		seen[key] = p.Key.Range()

		label := fmt.Sprintf("%s %q", what, name)
		val, ok := c.eval(p.Value)
		if !ok {
			continue
		}
		if err := checkScalarType(val.Type(), !header); err != nil {
			c.errorf(p.Value.Range(), "Invalid "+what+" value",
				"The %s %s. Convert it, for example with jsonencode(...) for structured data.", label, err)
			continue
		}
		v := newValue(p.Value, val, label)
		if v.known && header {
			values, err := valueStrings(v.val, false)
			if err == nil {
				for _, s := range values {
					err = checkHeaderValue(name, s)
				}
			}
			if err != nil {
				c.errorf(p.Value.Range(), "Invalid header value", "%s Correct the value.", sentence(err.Error()))
				continue
			}
		}
		kv.pairs = append(kv.pairs, kvPair{name: name, value: v})
	}
	return kv
}

// eval evaluates the entries for a call. Null values are left out.
func (kv *kvArg) eval(ev *hcl.EvalContext) ([]kvEntry, error) {
	if kv.whole != nil {
		val, err := kv.whole.eval(ev)
		if err != nil {
			return nil, err
		}
		return kv.evalWhole(val)
	}
	entries := make([]kvEntry, 0, len(kv.pairs))
	for _, p := range kv.pairs {
		val, err := p.value.eval(ev)
		if err != nil {
			return nil, err
		}
		values, err := valueStrings(val, !kv.header)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p.value.what, err)
		}
		if len(values) > 0 {
			entries = append(entries, kvEntry{name: p.name, values: values})
		}
	}
	return entries, nil
}

// evalWhole turns a map value into entries, sorted by name.
func (kv *kvArg) evalWhole(val cty.Value) ([]kvEntry, error) {
	what := "query"
	if kv.header {
		what = "headers"
	}
	val, _ = val.UnmarkDeep()
	if val.IsNull() {
		return nil, nil
	}
	ty := val.Type()
	if !ty.IsObjectType() && !ty.IsMapType() {
		return nil, fmt.Errorf("%s: must be a map, not %s", what, adapters.TypeName(ty))
	}
	var entries []kvEntry
	for it := val.ElementIterator(); it.Next(); {
		k, v := it.Element()
		name := k.AsString()
		values, err := valueStrings(v, !kv.header)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %v", what, name, err)
		}
		if kv.header {
			if err := checkHeaderName(name); err != nil {
				return nil, err
			}
			for _, s := range values {
				if err := checkHeaderValue(name, s); err != nil {
					return nil, err
				}
			}
		}
		if len(values) > 0 {
			entries = append(entries, kvEntry{name: name, values: values})
		}
	}
	return entries, nil
}

// checkHeaderName refuses a malformed header name.
func checkHeaderName(name string) error {
	if !httpguts.ValidHeaderFieldName(name) {
		return fmt.Errorf("%q is not a valid header name", name)
	}
	return nil
}

// checkHeaderValue refuses a header value that could split the request.
// The message names the header, never the value.
func checkHeaderValue(name, value string) error {
	if strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("header %q has a value with a line break (CR or LF), which was refused; header values must be a single line", name)
	}
	if !httpguts.ValidHeaderFieldValue(value) {
		return fmt.Errorf("header %q has a value with control characters, which was refused", name)
	}
	return nil
}

// sentence capitalizes msg and ends it with a period.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// ---- url ----

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
	attr, ok := tr.Traversal[1].(hcl.TraverseAttr)
	if !ok || !c.cc.Params[attr.Name].Optional {
		return
	}
	c.diags = append(c.diags, &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "Optional parameter in url",
		Detail: fmt.Sprintf("The parameter %q is optional and has no default, so every call without it fails: a url cannot hold a null. "+
			"Give it a default, make it required (remove required = false), or pass it in the query argument, which leaves a null out.", attr.Name),
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
	var b strings.Builder
	b.WriteString(s[:start])
	for pos := start; pos < end; {
		segEnd := pos + 1 + strings.IndexByte(s[pos+1:end], '/')
		if segEnd <= pos {
			segEnd = end
		}
		seg := s[pos+1 : segEnd] // without the leading '/'
		fromParam := false
		for _, r := range paramRanges {
			if r[0] < segEnd && pos+1 < r[1] {
				fromParam = true
			}
		}
		b.WriteByte('/')
		if fromParam && (seg == "." || seg == "..") {
			seg = strings.ReplaceAll(seg, ".", "%2E")
		}
		b.WriteString(seg)
		pos = segEnd
	}
	b.WriteString(s[end:])
	return b.String()
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

// ---- response ----

// parseContentType returns the media type without parameters and the
// charset label of a Content-Type header.
func parseContentType(ct string) (mediaType, charset string) {
	if ct == "" {
		return "", ""
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
		return strings.ToLower(strings.TrimSpace(mt)), ""
	}
	return mt, params["charset"]
}

// decodeCharset decodes body from the charset label to UTF-8. UTF-8 and
// an empty label leave the bytes as they are.
func decodeCharset(body []byte, label string) ([]byte, error) {
	if label == "" {
		return body, nil
	}
	enc, ok := charset.ByLabel(label)
	if !ok {
		if utf8.Valid(body) {
			return body, nil
		}
		return nil, fmt.Errorf("the response uses charset %q, which toolhost cannot decode; set charset in the http block to the charset the upstream really uses", label)
	}
	if charset.IsUTF8(enc) {
		return body, nil
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return nil, fmt.Errorf("decoding the response from %s failed: %v", label, err)
	}
	return out, nil
}

// bomCharset returns the charset a byte order mark at the start of
// body stands for, or "".
func bomCharset(body []byte) string {
	switch {
	case len(body) >= 3 && body[0] == 0xEF && body[1] == 0xBB && body[2] == 0xBF:
		return "utf-8"
	case len(body) >= 2 && body[0] == 0xFE && body[1] == 0xFF:
		return "utf-16be"
	case len(body) >= 2 && body[0] == 0xFF && body[1] == 0xFE:
		return "utf-16le"
	}
	return ""
}

// errorSnippet returns the start of an error response body for a message:
// decoded, with the secrets masked, at most errorSnippetBytes bytes, cut
// at a character boundary, trimmed. The secrets are masked before the cut
// (see RedactHead), so that an upstream that echoes one where the cut falls
// does not get part of it shown; cut says the body was cut at max_response.
func errorSnippet(body []byte, label string, cut bool, secrets []string) string {
	decoded, err := decodeCharset(body, label)
	if err != nil {
		decoded = body
	}
	s := strings.ToValidUTF8(string(decoded), "\uFFFD")
	s, _ = redact.RedactHead(s, errorSnippetBytes, secrets, cut)
	return strings.TrimSpace(s)
}

// DescribeOutput says what the response becomes (see OutputDescriber).
func (h *HTTP) DescribeOutput() string {
	if h.charset != "" {
		return "text"
	}
	return "the response: text, or the bytes of an image, a sound or another file when the upstream sends one"
}

var _ adapters.Backend = (*HTTP)(nil)
var _ adapters.OutputDescriber = (*HTTP)(nil)
