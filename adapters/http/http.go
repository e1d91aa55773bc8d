package http

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/redact"
)

func init() {
	adapters.Register(adapters.Kind{
		Name:    "http",
		Summary: "send an HTTP request built from the arguments and return the response body",
		Keys:    []string{"url", "method", "headers", "query", "body"},
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
	// envCreds are the credential-named variables the block reads with
	// env() (see adapters.EnvCredentialNames).
	envCreds []string
	// marked are header and query names whose values call sensitive().
	marked map[string]bool
	// sensitiveExprs are what headers and query pass to sensitive(...),
	// wherever they call it.
	sensitiveExprs []hcl.Expression
	client         *http.Client
	// tool is the tool's name, for the cache's keys and messages.
	tool string
	// retry is the retry block; nil when there is none.
	retry *retryPolicy
	// upstream is what the retry, breaker and limit blocks ask of the
	// state shared by the tools that reach one host (see upstreamFor).
	upstream upstreamSettings
	// cache is the cache block; nil when there is none.
	cache *responseCache
	// tokenExchange is the token_exchange block; nil when there is none.
	tokenExchange *tokenExchange
	// shape is the select block; nil when there is none.
	shape *projection
	// sleep replaces the waits between retries in tests; nil waits.
	sleep func(ctx context.Context, d time.Duration) error
	// plain is set when no per-call expression of the block calls a
	// function or runs a for expression: a call then needs no Budget.
	plain bool
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

// denyPrivate reports whether some policy refuses private addresses.
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
	if h.cache != nil {
		return h.cached(ctx, in)
	}
	return h.uncached(ctx, in, nil)
}

// uncached is Call without the cache. header, when not nil, receives
// the response's header.
func (h *HTTP) uncached(ctx context.Context, in *adapters.Input, header *http.Header) (*adapters.Output, error) {
	secrets := &callSecrets{}
	out, err := h.call(ctx, in, secrets, header)
	if err != nil {
		return nil, redact.Error(err, secrets.values())
	}
	out.Secrets = secrets.values
	return out, nil
}

// Close closes the idle connections of the backend's transport. Calls
// already running finish. The transport is shared by the http backends, so
// the others reconnect when they need to.
func (h *HTTP) Close() error {
	if h.used.Load() {
		h.client.CloseIdleConnections()
	}
	return nil
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
