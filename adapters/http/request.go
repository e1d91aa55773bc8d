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
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/tidwall/gjson"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/redact"
)

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
