package http

import (
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

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/neterr"

	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/redact"
)

// callSecrets collects what must not appear in a call's messages: the
// values of parameters marked sensitive and of the credentials read with
// env() (see adapters.EnvCredentialNames), and the URL, headers and query
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
func (h *HTTP) call(ctx context.Context, in *adapters.Input, secrets *callSecrets, header *http.Header) (*adapters.Output, error) {
	ev := &hcl.EvalContext{}
	if in != nil && in.Eval != nil {
		ev = in.Eval
	}
	secrets.known = append(adapters.SensitiveParamValues(ev, h.sensitiveParams), adapters.EnvCredentials(ev, h.envCreds)...)
	secrets.known = append(secrets.known, adapters.SensitiveArgValues(ev, h.sensitiveExprs)...)
	var fields []string
	var path string
	var whole bool
	if h.shape != nil {
		var perr error
		if fields, path, whole, perr = h.shape.picked(ev); perr != nil {
			return nil, perr
		}
	}
	if !h.plain {
		var done func()
		ev, done = adapters.WithBudget(ctx, ev, h.timeout)
		defer done()
	}
	secrets.marked = h.marked

	out, err := h.build(ev, secrets)
	if err != nil {
		return nil, err
	}
	if h.tokenExchange != nil {
		xctx, cancel := context.WithTimeout(ctx, h.timeout)
		err := h.tokenExchange.authorize(xctx, h.tool, out, secrets)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	host := out.target.Host
	callCtx, cancel := context.WithTimeoutCause(ctx, h.timeout, errTimeout)
	defer cancel()
	var report adapters.Reporter
	if in != nil {
		report = in.Report
	}
	resp, release, err := h.exchange(callCtx, out, report)
	if err != nil {
		return nil, h.requestError(err, host, ctx, callCtx)
	}
	defer release()
	raw := resp.Body
	if raw == nil {
		return nil, fmt.Errorf("request to %s failed: no response", host)
	}
	defer raw.Close()
	askedEncoding := out.header.Get("Accept-Encoding") != "" // the transport decodes gzip only when it asked
	data, over, err := h.readBody(resp, raw, host, askedEncoding, ctx, callCtx)
	if err != nil {
		return nil, err
	}
	if in != nil && adapters.Wants(in.Report, "debug") {
		in.Report.Log("debug", redact.Redact(fmt.Sprintf("%s %s: HTTP %d, %d bytes", h.method, out.target.Redacted(), resp.StatusCode, len(data)), secrets.urlValues()))
	}
	if header != nil {
		*header = resp.Header
	}
	result, err := h.output(resp, data, over, secrets)
	if err != nil || h.shape == nil || whole {
		return result, err
	}
	return h.shape.apply(result, fields, path, h.maxResponse)
}

// outgoing is a request built for a call, before it is sent.
type outgoing struct {
	target *url.URL
	header http.Header
	body   *string // nil: no body
}

// build evaluates the url, query, headers and body of a call and checks
// the target against the network policies. It adds the URL, query and
// headers to secrets.
func (h *HTTP) build(ev *hcl.EvalContext, secrets *callSecrets) (*outgoing, error) {
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
	return &outgoing{target: target, header: header, body: body}, nil
}

// send sends out, with a body's Content-Type set: content_type, else the
// one in the headers, else JSON. The response's body is left unread.
//
// The request is built straight from out, whose URL is parsed already:
// User-Agent is toolhost's unless the headers set one, a JSON or XML body
// is sent with the same Accept unless the headers set one, and every
// method but HEAD and OPTIONS sends a body, empty when there is none (as
// the resty client toolhost used before sent them).
func (h *HTTP) send(callCtx context.Context, out *outgoing) (*http.Response, error) {
	h.used.Store(true)
	header := out.header // the call's own: a retry sets the same again
	if header == nil {
		header = http.Header{}
	}
	var body io.Reader
	var length int64
	switch {
	case out.body != nil && *out.body != "":
		switch {
		case h.contentType != "":
			header.Set("Content-Type", h.contentType)
		case header.Get("Content-Type") == "":
			header.Set("Content-Type", defaultContentType)
		}
		body, length = strings.NewReader(*out.body), int64(len(*out.body))
	case h.method != http.MethodHead && h.method != http.MethodOptions:
		body = http.NoBody
	}
	if _, ok := header["User-Agent"]; !ok {
		header.Set("User-Agent", userAgent)
	}
	if ct := header.Get("Content-Type"); ct != "" && header.Get("Accept") == "" && jsonOrXML(ct) {
		header.Set("Accept", ct)
	}
	target := *out.target
	req := &http.Request{
		Method:     h.method,
		URL:        &target,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     header,
		Host:       strings.TrimSuffix(target.Host, ":"),
	}
	switch {
	case length > 0:
		s := *out.body
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(s)), length
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(s)), nil }
	case body != nil:
		req.Body = http.NoBody
		req.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
	}
	if host := header.Get("Host"); host != "" {
		req.Host = host
	}
	return h.client.Do(req.WithContext(callCtx))
}

// jsonOrXML reports whether the media type ct is JSON or XML (an
// application or text type whose subtype names either), for which a
// request says it accepts the same.
func jsonOrXML(ct string) bool {
	mt, _, _ := strings.Cut(strings.ToLower(ct), ";")
	typ, sub, ok := strings.Cut(strings.TrimSpace(mt), "/")
	return ok && (typ == "application" || typ == "text") && (strings.Contains(sub, "json") || strings.Contains(sub, "xml"))
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
	var upe *upstreamError
	if errors.As(err, &upe) {
		return upe
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
	case neterr.Refused(err):
		return fmt.Errorf("connection to %s refused; is the service running?", host)
	case neterr.Dropped(err), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
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
