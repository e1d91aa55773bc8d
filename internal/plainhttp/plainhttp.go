// Package plainhttp is an http.RoundTripper for requests to plain http://
// upstreams that writes each request and reads its response on the
// goroutine that asks, over kept-alive connections of its own.
//
// net/http's Transport gives every connection a goroutine that writes the
// requests and one that reads the responses, and hands each request and
// response between them and the caller. With one call in flight those
// hand-offs wake idle threads four times a request, which costs more than
// the request's own system calls (BENCHMARKS.md, "The http backend").
// Here the request is written with http.Request.Write and the response
// read with http.ReadResponse, both from net/http, on the caller's
// goroutine; what is left to this package is the pool of idle
// connections, cancellation, gzip and the retry of a request that met a
// connection the upstream had closed.
//
// Whatever the fast path does not cover goes to the net/http Transport
// it wraps, unchanged: https, a request a proxy is configured for, an
// upgrade, Expect: 100-continue, a body of unknown length or over BodyMax,
// a header field net/http would refuse. Where the state of an idle
// connection cannot be read without blocking (AIX, Plan 9, js and wasip1),
// everything goes to net/http.
//
// Before an idle connection is used again it is checked, without
// blocking, for having been closed by the upstream and for bytes the
// upstream sent unasked (which net/http's reader would have seen): such a
// connection is closed, never read as the next request's response. Unix
// peeks at it (alive_unix.go), Windows polls it (alive_windows.go).
package plainhttp

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"
)

// BodyMax is the largest request body the fast path sends. The body is
// written whole before the response is read: a body that fits in the
// socket's buffers cannot leave the write waiting on an upstream that
// answers early (with 413, say) without reading it. Larger bodies go to
// net/http, which reads the response while it writes.
const BodyMax = 64 << 10

// DefaultMaxResponseHeaderBytes is the cap on a response's header when
// the wrapped Transport sets none, as net/http's.
const DefaultMaxResponseHeaderBytes = 10 << 20

// max1xx is how many informational (1xx) responses a request may get
// before its final one, as net/http allows.
const max1xx = 5

// Transport is the RoundTripper. Make it with New; it is safe for
// concurrent use.
type Transport struct {
	base *http.Transport
	dial func(ctx context.Context, network, addr string) (net.Conn, error)

	fast atomic.Uint64 // requests sent by the fast path
	left atomic.Uint64 // requests sent by base

	mu       sync.Mutex
	idle     map[string][]*conn // by host:port, the most recently used last
	nidle    int
	sweeping bool // a sweep goroutine runs (see sweep)

	sweepEvery time.Duration // defaultSweepEvery; a test makes it shorter
}

// defaultSweepEvery is how often idle connections are looked at while
// there are any: those past IdleConnTimeout, or closed by the upstream,
// are closed.
const defaultSweepEvery = 5 * time.Second

// New returns a Transport that sends what it does not cover with base, and
// takes from base its Proxy, DialContext, DisableKeepAlives,
// DisableCompression, MaxIdleConns, MaxIdleConnsPerHost, IdleConnTimeout
// and MaxResponseHeaderBytes; its other fields (ResponseHeaderTimeout,
// MaxConnsPerHost, Dial, ...) apply to what goes to base only. base's
// fields must not change afterwards.
func New(base *http.Transport) *Transport {
	dial := base.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	return &Transport{base: base, dial: dial, idle: map[string][]*conn{}, sweepEvery: defaultSweepEvery}
}

// Available reports whether the fast path runs on this platform; where it
// does not, every request goes to the wrapped Transport.
const Available = canCheckAlive

// Sent returns how many requests the fast path sent, and how many went to
// the wrapped Transport.
func (t *Transport) Sent() (fast, left uint64) { return t.fast.Load(), t.left.Load() }

// conn is a connection of the fast path.
type conn struct {
	nc     net.Conn
	lim    capReader // what br reads from: the connection, capped while a header is read
	br     *bufio.Reader
	bw     *bufio.Writer
	key    string
	reused bool      // taken from the idle pool
	since  time.Time // when it went idle
}

// RoundTrip sends req and returns its response, on the caller's goroutine
// when the fast path covers req (see the package doc), else through the
// wrapped Transport.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.covers(req) {
		t.left.Add(1)
		return t.base.RoundTrip(req)
	}
	t.fast.Add(1)
	replayable := isReplayable(req)
	ctx := req.Context()
	key := hostPort(req)
	send := req
	for attempt := 0; ; attempt++ {
		c, err := t.get(ctx, key, attempt == 0)
		if err != nil {
			return nil, err
		}
		resp, unanswered, err := t.send(ctx, c, send)
		if err == nil {
			resp.Request = req
			return resp, nil
		}
		// A connection taken from the pool may have been closed by the
		// upstream while it was idle; a request that got no answer on it
		// is sent once more on a new one (not another from the pool), as
		// net/http does, when sending it twice is safe.
		if !unanswered || !c.reused || attempt > 0 || !replayable || ctx.Err() != nil {
			return nil, err
		}
		if send, err = rewound(req); err != nil {
			return nil, err
		}
	}
}

// covers reports whether the fast path sends req.
func (t *Transport) covers(req *http.Request) bool {
	u := req.URL
	if !canCheckAlive || u == nil || u.Scheme != "http" || u.Host == "" || t.base.DisableKeepAlives || !ascii(u.Host) {
		return false // a host in Unicode: net/http dials its punycode
	}
	if req.Body != nil && req.Body != http.NoBody && (req.ContentLength <= 0 || req.ContentLength > BodyMax) {
		return false
	}
	if len(req.TransferEncoding) > 0 || req.Method != "" && !validMethod(req.Method) {
		return false
	}
	for name, values := range req.Header {
		if !httpguts.ValidHeaderFieldName(name) {
			return false
		}
		for _, v := range values {
			if !httpguts.ValidHeaderFieldValue(v) {
				return false
			}
		}
		// A key set in the map directly may not be in canonical form.
		switch http.CanonicalHeaderKey(name) {
		case "Upgrade", "Expect", "Connection", "Transfer-Encoding", "Te", "Trailer", "Content-Length", "Host":
			return false
		}
	}
	if t.base.Proxy != nil {
		if p, err := t.base.Proxy(req); err != nil || p != nil {
			return false
		}
	}
	return true
}

// ascii reports whether s is all ASCII.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// validMethod reports whether m is a token, as a request's method must be.
func validMethod(m string) bool {
	for i := 0; i < len(m); i++ {
		if !httpguts.IsTokenRune(rune(m[i])) {
			return false
		}
	}
	return true
}

// isReplayable reports whether req may be sent a second time: its body can
// be had again, and its method is idempotent (or it carries an
// idempotency key), by net/http's rule.
func isReplayable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, key := req.Header["Idempotency-Key"]
	_, xkey := req.Header["X-Idempotency-Key"]
	return key || xkey
}

// rewound is req with its body to be sent again.
func rewound(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r := *req
	r.Body = body
	return &r, nil
}

// hostPort is the address req goes to, with port 80 when the URL has none.
func hostPort(req *http.Request) string {
	host, port := req.URL.Hostname(), req.URL.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(host, port)
}

// get returns an idle connection to key that is still open and holds
// nothing unread, when pooled allows one, or a new one.
func (t *Transport) get(ctx context.Context, key string, pooled bool) (*conn, error) {
	t.mu.Lock()
	for pooled {
		list := t.idle[key]
		if len(list) == 0 {
			break
		}
		c := list[len(list)-1]
		list[len(list)-1] = nil
		t.idle[key] = list[:len(list)-1]
		t.nidle--
		t.mu.Unlock()
		if !t.fit(c) {
			c.nc.Close()
			t.mu.Lock()
			continue
		}
		c.reused = true
		return c, nil
	}
	t.mu.Unlock()
	nc, err := t.dial(ctx, "tcp", key)
	if err != nil {
		return nil, err
	}
	c := &conn{nc: nc, key: key}
	c.lim = capReader{r: nc, n: -1}
	c.br = bufio.NewReaderSize(&c.lim, 4<<10)
	c.bw = bufio.NewWriterSize(nc, 4<<10)
	return c, nil
}

// fit reports whether the idle connection c may be used again: within
// IdleConnTimeout, and still open with nothing unread (alive).
func (t *Transport) fit(c *conn) bool {
	timeout := t.base.IdleConnTimeout
	return (timeout <= 0 || time.Since(c.since) <= timeout) && alive(c.nc)
}

// put returns c to the idle pool, or closes it when the pool is full.
func (t *Transport) put(c *conn) {
	perHost := t.base.MaxIdleConnsPerHost
	if perHost == 0 {
		perHost = http.DefaultMaxIdleConnsPerHost
	}
	if c.br.Buffered() > 0 {
		c.nc.Close() // the upstream sent more than the response
		return
	}
	t.mu.Lock()
	if len(t.idle[c.key]) >= perHost || (t.base.MaxIdleConns > 0 && t.nidle >= t.base.MaxIdleConns) {
		t.mu.Unlock()
		c.nc.Close()
		return
	}
	c.since = time.Now()
	t.idle[c.key] = append(t.idle[c.key], c)
	t.nidle++
	if !t.sweeping {
		t.sweeping = true
		go t.sweep()
	}
	t.mu.Unlock()
}

// sweep closes, every t.sweepEvery (or IdleConnTimeout, if shorter), the
// idle connections past IdleConnTimeout or no longer open, so that none
// holds a descriptor long after the upstream closed it. It returns once
// no connection is idle.
func (t *Transport) sweep() {
	every := t.sweepEvery
	if timeout := t.base.IdleConnTimeout; timeout > 0 && timeout < every {
		every = timeout
	}
	for {
		time.Sleep(every)
		var drop []*conn
		t.mu.Lock()
		for key, list := range t.idle {
			kept := list[:0]
			for _, c := range list {
				if !t.fit(c) {
					drop = append(drop, c)
					continue
				}
				kept = append(kept, c)
			}
			clear(list[len(kept):])
			if t.nidle -= len(list) - len(kept); len(kept) == 0 {
				delete(t.idle, key)
			} else {
				t.idle[key] = kept
			}
		}
		done := t.nidle == 0
		if done {
			t.sweeping = false
		}
		t.mu.Unlock()
		for _, c := range drop {
			c.nc.Close()
		}
		if done {
			return
		}
	}
}

// CloseIdleConnections closes the idle connections of the fast path and,
// once a request has gone to it, of the wrapped Transport (whose
// CloseIdleConnections would otherwise set up HTTP/2 to close nothing).
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle, t.nidle = map[string][]*conn{}, 0
	t.mu.Unlock()
	for _, list := range idle {
		for _, c := range list {
			c.nc.Close()
		}
	}
	if t.left.Load() > 0 {
		t.base.CloseIdleConnections()
	}
}

// send writes req on c and reads the head of its response. unanswered is
// set when the error came before any byte of a response: the request may
// be sent again on a new connection. On an error c is closed.
func (t *Transport) send(ctx context.Context, c *conn, req *http.Request) (_ *http.Response, unanswered bool, _ error) {
	// A cancelled or expired context makes whatever the connection is
	// doing return, from then on: the connection is not used again.
	// It is closed, which ends a read or write under way and frees it
	// even if the caller never closes the body.
	stop := context.AfterFunc(ctx, func() { c.nc.Close() })
	fail := func(err error, unanswered bool) (*http.Response, bool, error) {
		stop()
		c.nc.Close()
		if ctx.Err() != nil {
			return nil, false, context.Cause(ctx)
		}
		return nil, unanswered, err
	}
	wreq, gz := req, false
	if !t.base.DisableCompression && req.Method != http.MethodHead && req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == "" {
		// As net/http's Transport: ask for gzip, and decode it.
		r := *req
		r.Header = req.Header.Clone()
		if r.Header == nil {
			r.Header = http.Header{}
		}
		r.Header["Accept-Encoding"] = []string{"gzip"}
		wreq, gz = &r, true
	}
	if err := wreq.Write(c.bw); err != nil {
		return fail(err, true)
	}
	if err := c.bw.Flush(); err != nil {
		return fail(err, true)
	}
	maxHeader := t.base.MaxResponseHeaderBytes
	if maxHeader <= 0 {
		maxHeader = DefaultMaxResponseHeaderBytes
	}
	c.lim.n = maxHeader
	if _, err := c.br.Peek(1); err != nil {
		return fail(err, true)
	}
	var resp *http.Response
	for n := 0; ; n++ {
		var err error
		resp, err = http.ReadResponse(c.br, req)
		if err != nil {
			if c.lim.n == 0 {
				err = fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", maxHeader)
			}
			return fail(err, false)
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		if n == max1xx {
			return fail(errors.New("net/http: too many 1xx informational responses"), false)
		}
	}
	c.lim.n = -1
	reuse := !resp.Close && !req.Close && resp.StatusCode != http.StatusSwitchingProtocols
	if resp.Body == http.NoBody {
		finish(t, c, stop, reuse)
		return resp, false, nil
	}
	resp.Body = &body{t: t, c: c, r: resp.Body, ctx: ctx, stop: stop, reuse: reuse}
	if gz && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		resp.Body = &gzipBody{body: resp.Body}
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
	}
	return resp, false, nil
}

// finish ends c's use by a request: back to the pool with reuse, when the
// context did not fire meanwhile, or closed.
func finish(t *Transport, c *conn, stop func() bool, reuse bool) {
	if stop() && reuse {
		t.put(c)
		return
	}
	c.nc.Close()
}

// body is a response's body on the fast path: once read to its end its
// connection goes back to the pool; closed before, the connection is
// closed.
type body struct {
	t     *Transport
	c     *conn
	r     io.ReadCloser
	ctx   context.Context
	stop  func() bool
	reuse bool
	done  atomic.Bool // the connection was released
	eof   atomic.Bool // by a read that reached the end
}

// errClosedBody is the error of a read after Close, as net/http's.
var errClosedBody = errors.New("http: read on closed response body")

// Read reads from the body; at its end the connection is released.
func (b *body) Read(p []byte) (int, error) {
	if b.done.Load() {
		if b.eof.Load() {
			return 0, io.EOF
		}
		return 0, errClosedBody
	}
	n, err := b.r.Read(p)
	switch {
	case err == io.EOF:
		b.eof.Store(true)
		if b.done.CompareAndSwap(false, true) {
			finish(b.t, b.c, b.stop, b.reuse)
		}
	case err != nil:
		if b.done.CompareAndSwap(false, true) {
			finish(b.t, b.c, b.stop, false)
		}
		if b.ctx.Err() != nil {
			err = context.Cause(b.ctx)
		}
	}
	return n, err
}

// Close closes the body. Before its end that closes the connection, which
// also ends a Read blocked on it.
func (b *body) Close() error {
	b.eof.Store(false) // a read after Close fails, as net/http's does
	if b.done.CompareAndSwap(false, true) {
		finish(b.t, b.c, b.stop, false)
	}
	return nil
}

// gzipBody decodes a gzip body, from its first read: an error in the gzip
// header is a read's error, as net/http's is.
type gzipBody struct {
	body io.ReadCloser
	zr   *gzip.Reader
	err  error
}

// Read reads the decoded body.
func (g *gzipBody) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.body)
	}
	if g.err != nil {
		return 0, g.err
	}
	return g.zr.Read(p)
}

// Close closes the body beneath.
func (g *gzipBody) Close() error { return g.body.Close() }

// capReader reads from r; while n is not negative it reads n bytes at
// most, then fails (a response's header over the cap).
type capReader struct {
	r io.Reader
	n int64
}

// errHeaderCap is what a read past the cap returns.
var errHeaderCap = errors.New("response header too large")

// Read reads from r within the cap.
func (l *capReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return l.r.Read(p)
	}
	if l.n == 0 {
		return 0, errHeaderCap
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}
