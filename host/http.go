package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"

	"github.com/toolhost/toolhost/adapters"
)

// Defaults of an HTTPServer's options.
const (
	// DefaultListenHost is the host an address without one binds to: only
	// this machine can connect unless the operator names another.
	DefaultListenHost = "127.0.0.1"
	// DefaultShutdownTimeout bounds how long a shutdown waits for calls in
	// flight before it cancels them.
	DefaultShutdownTimeout = 10 * time.Second
	// DefaultRequestTimeout bounds one MCP request (a tools/call, say)
	// served over HTTP. Tools' own timeouts (30 s by default) usually end
	// them sooner.
	DefaultRequestTimeout = 5 * time.Minute
	// DefaultMaxSessions is the default cap on sessions open at once:
	// about 15 KB each while idle, so some 150 MB at the cap.
	DefaultMaxSessions = 10000
	// DefaultSSEKeepAlive is how often an idle SSE stream gets a comment
	// line, so that proxies and load balancers do not close it as idle.
	DefaultSSEKeepAlive = 25 * time.Second
)

// Timeouts of the HTTP layer itself.
const (
	// readHeaderTimeout bounds the reading of a request's headers.
	readHeaderTimeout = 10 * time.Second
	// DefaultBodyReadTimeout bounds the reading of a request's body.
	DefaultBodyReadTimeout = 30 * time.Second
	// idleTimeout closes keep-alive connections with no request.
	idleTimeout = 2 * time.Minute
	// cancelGrace is how long a shutdown past its deadline waits for the
	// calls it cancelled to unwind.
	cancelGrace = 2 * time.Second
	// sseLinger is how long an SSE stream stays open during a shutdown after
	// its last answer, for clients that drop the events still queued when a
	// stream ends (the Go SDK's SSE client does).
	sseLinger = 250 * time.Millisecond
)

// HTTPOptions configures an HTTPServer.
type HTTPOptions struct {
	// Addr is the address to listen on, host:port (see NormalizeListenAddr).
	// Its host and port also make the default allowed Host values.
	Addr string
	// Stateless serves streamable HTTP without sessions (no Mcp-Session-Id):
	// every request stands alone, so any replica can answer it.
	Stateless bool
	// AllowedHosts extends the Host header values accepted on the MCP
	// endpoints. An entry without a port matches any port; "*" accepts any
	// Host (for a proxy in front that checks it).
	AllowedHosts []string
	// AllowedOrigins extends the Origin header values accepted, as
	// scheme://host[:port]; "*" accepts any. Requests without an Origin
	// (every non-browser client) are always accepted.
	AllowedOrigins []string
	// AuthToken, when not empty, is the bearer token every request to the
	// MCP endpoints must carry.
	AuthToken string
	// MaxBodyBytes limits a request body; DefaultMaxMessageSize when 0.
	MaxBodyBytes int64
	// BodyReadTimeout bounds the reading of a request body;
	// DefaultBodyReadTimeout when 0.
	BodyReadTimeout time.Duration
	// RequestTimeout bounds each MCP request; DefaultRequestTimeout when 0,
	// no bound when negative.
	RequestTimeout time.Duration
	// ShutdownTimeout bounds a graceful shutdown; DefaultShutdownTimeout
	// when 0.
	ShutdownTimeout time.Duration
	// Hurry, when closed during a graceful shutdown (a second Ctrl-C),
	// ends it at once: the calls still running are stopped, and their
	// clients told why, as when ShutdownTimeout is reached.
	Hurry <-chan struct{}
	// KillCommands, when set, kills at once what the calls' backends still
	// run (adapters.KillCommands). A call stopped by the shutdown answers
	// without waiting for its command, which goes on within its
	// kill_timeout until the host kills it as it exits; after Hurry it is
	// killed at once.
	KillCommands func()
	// SessionIdleTimeout closes a streamable HTTP session that has had no
	// request for this long; 0 keeps sessions until the client ends them.
	SessionIdleTimeout time.Duration
	// MaxSessions caps the sessions open at once (streamable HTTP and
	// SSE together, and when Stateless the subscriptions/listen streams,
	// each a session while open): a request that would start one more is
	// refused with 503, so that clients that open sessions without end
	// cannot take the server's memory. DefaultMaxSessions when 0.
	MaxSessions int
	// SSEKeepAlive is the interval of keep-alive comments on SSE streams;
	// DefaultSSEKeepAlive when 0, none when negative.
	SSEKeepAlive time.Duration
	// Logger receives the access log and the server's own messages;
	// slog.Default() when nil.
	Logger *slog.Logger
}

// HTTPServer serves a Server to remote MCP clients: streamable HTTP at /mcp,
// the legacy SSE transport at /sse and /messages, and health endpoints at
// /healthz and /readyz. Every MCP endpoint checks Host and Origin
// (DNS-rebinding protection), the bearer token when one is set, and the
// size of the body.
type HTTPServer struct {
	srv    *Server
	opts   HTTPOptions
	logger *slog.Logger

	policy    atomic.Pointer[originPolicy]
	tokenHash [sha256.Size]byte

	streamable *mcp.StreamableHTTPHandler
	sse        *sseHandler
	handler    http.Handler

	// inflight counts MCP requests being handled (not notifications, not
	// subscriptions/listen streams).
	inflight atomic.Int64
	// listenBytes is the sum of the lengths of the requests of the open
	// subscriptions/listen streams, which hold them while open: at most
	// maxListenBodies.
	listenBytes atomic.Int64
	// endStreams, called when a shutdown starts, ends the streams that only
	// wait for server messages: streamable HTTP's standalone GET and
	// subscriptions/listen (SSE streams end once their calls are answered).
	streamsCtx context.Context
	endStreams context.CancelFunc
	// stopCtx ends, with its cause, when stopCalls is called: when a
	// shutdown runs past its deadline.
	stopCtx    context.Context
	cancelStop context.CancelCauseFunc
	// stops holds the cancel functions of the requests in flight, for
	// stopCalls to call before it returns.
	stopsMu  sync.Mutex
	stops    map[*context.CancelCauseFunc]struct{}
	shutting atomic.Bool

	// calls follows the calls in flight on streamable HTTP sessions, so
	// that the answers to those the client cancelled are dropped.
	calls *callTracker
	// waiters holds the streams of POSTs whose calls have not all
	// reached the server yet (see keepStreamsAlive).
	waiters *streamWaiters
	// streams follows the event streams of streamable HTTP sessions; nil
	// when stateless.
	streams *sessionStreams
	// idle closes idle sessions; nil when stateless or without
	// SessionIdleTimeout.
	idle *idleSessions
}

// deadPeerTimeout is how long a client may leave data unacknowledged
// before its connection is dropped (TCP_USER_TIMEOUT): the keep-alive
// interval, DefaultSSEKeepAlive when keep-alive comments are off. The
// notifications of a GET stream count as delivered once the stream
// outlived them by twice that (sessionStreams).
func (o HTTPOptions) deadPeerTimeout() time.Duration {
	if o.SSEKeepAlive > 0 {
		return o.SSEKeepAlive
	}
	return DefaultSSEKeepAlive
}

// NormalizeListenAddr turns what --listen was given into host:port: a bare
// port or ":port" binds to DefaultListenHost, so that nothing is reachable
// from other machines unless a host (0.0.0.0 for all interfaces) is named.
func NormalizeListenAddr(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("empty address: give HOST:PORT, as in 127.0.0.1:8080")
	}
	if _, err := strconv.Atoi(s); err == nil {
		s = ":" + s
	}
	if strings.Contains(s, "://") {
		return "", fmt.Errorf("%q is a URL: give only HOST:PORT, as in 127.0.0.1:8080 (toolhost serves /mcp and /sse on it)", s)
	}
	host, port, err := net.SplitHostPort(s)
	switch {
	case err == nil:
	case strings.Count(s, ":") > 1 && !strings.HasPrefix(s, "["):
		// ::1:8080 is an IPv6 address of its own: the port must follow
		// the address's brackets.
		return "", fmt.Errorf("%q is not HOST:PORT: write an IPv6 address in brackets, followed by the port, as in [::1]:8080", s)
	default:
		return "", fmt.Errorf("%q is not HOST:PORT: give an address as in 127.0.0.1:8080 (or 0.0.0.0:8080 to accept connections from other machines)", s)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("%q has no valid port: give a number from 0 to 65535, as in 127.0.0.1:8080", s)
	}
	if host == "" {
		host = DefaultListenHost
	}
	return net.JoinHostPort(host, port), nil
}

// Validate reports the first problem with the listen address or the
// allow-lists, naming the flag and the fix.
func (o *HTTPOptions) Validate() error {
	addr, err := NormalizeListenAddr(o.Addr)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	_, err = newOriginPolicy(addr, o.AllowedHosts, o.AllowedOrigins)
	return err
}

// NewHTTPServer makes the HTTP front end of srv. It adds a middleware to
// srv's SDK server that applies the request timeout and lets a shutdown
// wait for, and if need be cancel, the requests in flight; make one
// HTTPServer per Server.
func NewHTTPServer(srv *Server, opts HTTPOptions) (*HTTPServer, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxMessageSize
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.SSEKeepAlive == 0 {
		opts.SSEKeepAlive = DefaultSSEKeepAlive
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts.Addr, _ = NormalizeListenAddr(opts.Addr)
	h := &HTTPServer{srv: srv, opts: opts, logger: opts.Logger}
	if opts.AuthToken != "" {
		h.tokenHash = sha256.Sum256([]byte(opts.AuthToken))
	}
	p, err := newOriginPolicy(opts.Addr, opts.AllowedHosts, opts.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	h.policy.Store(p)
	h.stopCtx, h.cancelStop = context.WithCancelCause(context.Background())
	h.stops = map[*context.CancelCauseFunc]struct{}{}
	h.streamsCtx, h.endStreams = context.WithCancel(context.Background())
	h.calls = &callTracker{calls: map[trackedKey]*trackedCall{}}
	h.waiters = &streamWaiters{}
	srv.MCP().AddReceivingMiddleware(h.callMiddleware)

	getServer := func(*http.Request) *mcp.Server { return srv.MCP() }
	var events mcp.EventStore
	if !opts.Stateless {
		// A client whose stream broke resumes it with Last-Event-ID, from
		// this replica's memory (bounded, oldest events dropped first).
		// The answers to cancelled calls are not kept for it.
		store := &cancelAwareStore{EventStore: mcp.NewMemoryEventStore(nil), calls: h.calls, onClose: func(sid string) {
			if h.idle != nil {
				h.idle.forget(sid)
			}
		}}
		store.streams = newSessionStreams(store.EventStore, 2*opts.deadPeerTimeout())
		h.streams = store.streams
		events = store
	}
	h.streamable = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:           opts.Stateless,
		EventStore:          events,
		Logger:              sdkLogger(h.logger),
		MaxRequestBodyBytes: opts.MaxBodyBytes,
		// Idle sessions are closed by h.idle, which counts a GET stream
		// that waits for notifications as activity; the SDK's timer does
		// not.
		// Host and Origin are checked by guard, against a list the
		// operator can extend; the SDK's fixed loopback check would refuse
		// a proxy's Host even when the operator allowed it.
		DisableLocalhostProtection: true,
		// A 2026-07-28 request whose client went away is cancelled.
		PropagateRequestCancellation: true,
	})
	h.sse = &sseHandler{h: h, sessions: map[string]*sseSession{}}

	mux := http.NewServeMux()
	var streamable http.Handler = h.streamable
	if h.streams != nil {
		streamable = h.streams.resume(streamable)
	}
	sessions := h.streamablePOST(h.keepStreamsAlive(streamable))
	if !opts.Stateless && opts.SessionIdleTimeout > 0 {
		h.idle = newIdleSessions(opts.SessionIdleTimeout, func(sid string) {
			switch status := deleteSession(sessions, sid); status {
			case http.StatusNoContent:
				h.logger.Info("session closed after its idle timeout", "session_id", sid, "idle", opts.SessionIdleTimeout)
			case http.StatusNotFound: // it ended meanwhile
			default:
				h.logger.Warn("could not close a session after its idle timeout", "session_id", sid, "status", status)
			}
		})
		sessions = h.idle.track(sessions)
	}
	mux.Handle("/mcp", h.guard(h.explainSDKErrors(h.endOnShutdown(sessions))))
	mux.Handle("/sse", h.guard(http.HandlerFunc(h.sse.serveStream)))
	mux.Handle("/messages", h.guard(http.HandlerFunc(h.sse.serveMessage)))
	mux.Handle("/messages/", h.guard(http.HandlerFunc(h.sse.serveMessage)))
	mux.HandleFunc("/healthz", h.serveHealth)
	mux.HandleFunc("/readyz", h.serveReady)
	mux.HandleFunc("/", serveNotFound)
	h.handler = h.accessLog(mux)
	return h, nil
}

// keepStreamsAlive gives the SSE streams of streamable HTTP what /sse
// streams get: X-Accel-Buffering: no, and a comment line every
// SSEKeepAlive while the stream is open, so that a proxy does not take a
// stream waiting for notifications, or for a long call's answer, for an
// idle connection and close it. The comments go between the SDK's events,
// each of which it writes in one Write. A response that is not a stream
// (a JSON answer, a 202) costs one small wrapper, no goroutine.
//
// The SDK writes a call's stream's headers with its first event: at once
// from protocol 2025-11-25 on (an empty priming event), but only with the
// answer or a notification on older protocols, and in --stateless mode (no
// event store, no priming event). Such a stream is started here instead,
// once every call of the POST has reached the server (see streamWaiters):
// the SDK has set the stream's headers then, and before 2026-07-28 touches
// them no more. (From 2026-07-28 on it may: see streamablePOST.)
func (h *HTTPServer) keepStreamsAlive(next http.Handler) http.Handler {
	if h.opts.SSEKeepAlive <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kw := &keepAliveWriter{ResponseWriter: w, interval: h.opts.SSEKeepAlive}
		defer kw.finish()
		if r.Method == http.MethodPost {
			// The token is ours to set: a client's is never used.
			r.Header.Del(streamTokenHeader)
			if n, _ := r.Context().Value(postCallsKey{}).(int); n > 0 {
				token := h.waiters.add(kw, n)
				defer h.waiters.remove(token)
				r.Header.Set(streamTokenHeader, token)
			}
		}
		next.ServeHTTP(kw, r)
	})
}

// postCallsKey is the request context key under which streamablePOST
// leaves the number of calls a POST carries.
type postCallsKey struct{}

// streamTokenHeader carries a POST's token in its request headers, which
// the SDK hands to the server's middleware with each of its calls
// (RequestExtra.Header).
const streamTokenHeader = "Toolhost-Call-Stream"

// streamWaiters holds the streams of the POSTs in flight whose calls have
// not all reached the server yet, by token.
type streamWaiters struct {
	mu      sync.Mutex
	next    uint64
	streams map[string]*keepAliveWriter
}

// add registers the stream of a POST with calls, and returns its token.
func (s *streamWaiters) add(k *keepAliveWriter, calls int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	token := strconv.FormatUint(s.next, 10)
	k.calls = calls
	if s.streams == nil {
		s.streams = map[string]*keepAliveWriter{}
	}
	s.streams[token] = k
	return token
}

// remove forgets the stream of a POST that has ended.
func (s *streamWaiters) remove(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.streams, token)
}

// callStarted notes that a call of the POST whose request headers are
// given has reached the server.
func (s *streamWaiters) callStarted(header http.Header) {
	token := header.Get(streamTokenHeader)
	if token == "" {
		return
	}
	s.mu.Lock()
	k := s.streams[token]
	s.mu.Unlock()
	if k != nil {
		k.callStarted()
	}
}

// keepAliveWriter is a response that gets keep-alive comments once its
// headers say it is an event stream, or once the calls of its POST have
// all reached the server.
type keepAliveWriter struct {
	http.ResponseWriter
	interval time.Duration
	mu       sync.Mutex
	// stop ends the comments; nil until they start.
	stop                  chan struct{}
	wroteHeader, finished bool
	// streaming is set once the response is under way as a 200 event
	// stream: only then do comments go out.
	streaming bool
	// calls is the number of calls the POST carries, started the number
	// that have reached the server.
	calls, started int
}

func (k *keepAliveWriter) WriteHeader(code int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.writeHeaderLocked(code)
}

func (k *keepAliveWriter) writeHeaderLocked(code int) {
	if k.wroteHeader {
		return
	}
	k.wroteHeader = true
	if k.eventStream() {
		k.Header().Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
		k.streaming = code == http.StatusOK
		if code == http.StatusOK && !k.finished && k.stop == nil {
			k.stop = make(chan struct{})
			go k.commentEvery(k.interval, k.stop)
		}
	}
	k.ResponseWriter.WriteHeader(code)
}

// eventStream reports whether the response is an SSE stream.
func (k *keepAliveWriter) eventStream() bool {
	return strings.HasPrefix(k.Header().Get("Content-Type"), "text/event-stream")
}

// callStarted counts a call of the POST that reached the server; once all
// have, the comments start, and with the first the stream's headers if
// the SDK has not written them by then.
func (k *keepAliveWriter) callStarted() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.started++
	if k.started < k.calls || k.finished || k.stop != nil {
		return
	}
	k.stop = make(chan struct{})
	go k.commentEvery(k.interval, k.stop)
}

// commentEvery writes a comment every interval until stop is closed.
func (k *keepAliveWriter) commentEvery(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			k.comment()
		}
	}
}

// finish ends the comments: nothing is written once the handler returns.
func (k *keepAliveWriter) finish() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.finished = true
	if k.stop != nil {
		close(k.stop)
	}
}

func (k *keepAliveWriter) Write(b []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.writeHeaderLocked(http.StatusOK)
	return k.ResponseWriter.Write(b)
}

// FlushError flushes, for http.ResponseController.
func (k *keepAliveWriter) FlushError() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return http.NewResponseController(k.ResponseWriter).Flush()
}

// Flush flushes, for http.Flusher.
func (k *keepAliveWriter) Flush() { _ = k.FlushError() }

// Unwrap gives http.ResponseController the response underneath.
func (k *keepAliveWriter) Unwrap() http.ResponseWriter { return k.ResponseWriter }

// comment writes a keep-alive comment on a stream that is open, and first
// its headers when nothing has been written yet: a response that is not a
// 200 event stream gets nothing.
func (k *keepAliveWriter) comment() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.finished {
		return
	}
	if !k.wroteHeader {
		if !k.eventStream() {
			return
		}
		k.writeHeaderLocked(http.StatusOK)
	}
	if !k.streaming {
		return // an error answer, or JSON: a comment would corrupt it
	}
	if _, err := io.WriteString(k.ResponseWriter, ": keepalive\n\n"); err == nil {
		_ = http.NewResponseController(k.ResponseWriter).Flush()
	}
}

// listenError says why the server cannot listen on addr, and what to do:
// another port when this one is taken or not allowed, another address when
// the host is not one of this machine's or cannot be resolved.
func listenError(addr string, err error) error {
	fix := "check the address given to --listen"
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		fix = "choose another port with --listen, or stop what is using it"
	case errors.Is(err, syscall.EACCES):
		fix = "choose a port above 1023 with --listen (ports below need privileges)"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		fix = "the host is not an address of this machine; listen on one of its addresses, such as 127.0.0.1, or on 0.0.0.0 for all of them"
	case errors.As(err, &dnsErr):
		fix = "the host name does not resolve; give an IP address or a name this machine resolves, such as localhost"
	}
	return fmt.Errorf("cannot listen on %s: %w; %s", addr, err, fix)
}

// Handler returns the HTTP handler with every route and middleware.
func (h *HTTPServer) Handler() http.Handler { return h.handler }

// ListenAndServe listens on the configured address and serves until ctx
// ends, then shuts down gracefully (see Serve).
func (h *HTTPServer) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", h.opts.Addr)
	if err != nil {
		return listenError(h.opts.Addr, err)
	}
	return h.Serve(ctx, ln)
}

// Serve serves on ln until ctx ends, then shuts down: it stops accepting
// connections, ends the streams that only wait for server messages, and
// waits for the calls in flight to be answered. Calls still running after
// ShutdownTimeout are cancelled and the remaining connections closed.
// Serve returns nil after a shutdown that ctx started.
func (h *HTTPServer) Serve(ctx context.Context, ln net.Listener) error {
	if _, port, err := net.SplitHostPort(h.opts.Addr); err == nil && port == "0" {
		// Port 0 picked a free port: the allowed Host values need it.
		host, _, _ := net.SplitHostPort(h.opts.Addr)
		_, real, _ := net.SplitHostPort(ln.Addr().String())
		p, err := newOriginPolicy(net.JoinHostPort(host, real), h.opts.AllowedHosts, h.opts.AllowedOrigins)
		if err != nil {
			return err
		}
		h.policy.Store(p)
	}
	errorLog := slog.NewLogLogger(h.logger.With("component", "http").Handler(), slog.LevelWarn)
	// A client gone without a word is noticed within a keep-alive
	// interval: the writes to it fail, and a GET stream's notifications
	// written since are sent again on the client's next stream (their
	// grace is two intervals, sessionStreams).
	userTimeout := h.opts.deadPeerTimeout()
	hs := &http.Server{
		Handler:           h.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          errorLog,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if err := setUserTimeout(c, userTimeout); err != nil {
				h.logger.Debug("cannot set TCP_USER_TIMEOUT", "error", err)
			}
			return ctx
		},
	}
	// The URLs in the log are ones a client on this machine can use: an
	// address that listens on every interface (0.0.0.0, [::]) is not one
	// to connect to.
	base := "http://" + ln.Addr().String()
	wildcard := false
	if host, port, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			wildcard = true
			base = "http://" + net.JoinHostPort("127.0.0.1", port)
		}
	}
	h.logger.Info("serving over HTTP", "addr", ln.Addr().String(), "mcp", base+"/mcp", "sse", base+"/sse",
		"stateless", h.opts.Stateless, "auth", h.opts.AuthToken != "", "allowed_hosts", strings.Join(h.policy.Load().hostList(), ","))
	if h.opts.AuthToken == "" && !isLoopbackHost(ln.Addr().String()) {
		h.logger.Warn("listening on a non-loopback address without --auth-token-env: anyone who can reach this port can call the tools", "addr", ln.Addr().String())
	}
	if wildcard && !h.policy.Load().anyHost && len(h.opts.AllowedHosts) == 0 {
		h.logger.Warn("listening on every interface, but requests are accepted only with the Host localhost, 127.0.0.1 or [::1] (a guard against DNS rebinding): "+
			"to serve other machines, give the names and addresses they reach this one by with --allowed-hosts, as in --allowed-hosts mcp.example.com,192.0.2.10",
			"addr", ln.Addr().String())
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	select {
	case err := <-serveErr:
		h.stopCalls(fmt.Errorf("the HTTP server stopped: %w", err))
		return err
	case <-ctx.Done():
	}
	return h.shutdown(hs, serveErr)
}

// shutdown stops hs gracefully within ShutdownTimeout.
//
// Closing an SDK session is no way to end its streams gracefully: a closing
// session drops the answers of its calls in flight. So the streams end
// first, each in its own way: the standalone GET of streamable HTTP through
// its request's context (endOnShutdown), subscriptions/listen through its
// handler's context (callMiddleware), an SSE stream once its session has no
// call pending (serveStream). http.Server.Shutdown waits for the rest, the
// POSTs of calls in flight; the sessions are closed after that.
func (h *HTTPServer) shutdown(hs *http.Server, serveErr <-chan error) error {
	h.shutting.Store(true)
	if h.idle != nil {
		h.idle.stopAll() // the shutdown closes every session
	}
	h.endStreams()
	timeout := h.opts.ShutdownTimeout
	h.logger.Info("shutting down", "calls_in_flight", h.inflight.Load(), "timeout", timeout.String())
	deadline, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	hurried := make(chan struct{})
	if h.opts.Hurry != nil {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-h.opts.Hurry:
				close(hurried)
				cancel()
			case <-stop:
			}
		}()
	}

	err := hs.Shutdown(deadline)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		reason := fmt.Errorf("%w and the calls still running after --shutdown-timeout (%s) were stopped", ErrShuttingDown, timeout)
		select {
		case <-hurried:
			h.logger.Warn("second signal: cancelling the calls still running and closing connections",
				"calls_in_flight", h.inflight.Load())
			reason = fmt.Errorf("%w and a second signal stopped the calls still running", ErrShuttingDown)
		default:
			h.logger.Warn("shutdown timeout reached: cancelling the calls still running and closing connections",
				"calls_in_flight", h.inflight.Load(), "timeout", timeout.String())
		}
		err = nil
		// The calls past the deadline are cancelled with the reason, and
		// their clients get it as their answer at once, whatever their
		// commands' kill_timeout (adapters.ErrHostExiting): the
		// connections stay open until the answers are written (within
		// cancelGrace).
		h.stopCalls(reason)
		select {
		case <-hurried:
			// Their commands are stopped first, so that the answers
			// give the reason, and then killed, not given what is left
			// of their kill_timeout.
			if h.opts.KillCommands != nil {
				h.opts.KillCommands()
			}
		default:
		}
		grace, cancelGraceCtx := context.WithTimeout(context.Background(), cancelGrace)
		_ = hs.Shutdown(grace)
		cancelGraceCtx()
	}
	// Calls whose clients went away may still run, detached from any
	// request. They are cancelled (their processes killed), and the
	// sessions left are closed.
	h.stopCalls(ErrShuttingDown)
	_ = hs.Close()
	closed := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		for ss := range h.srv.MCP().Sessions() {
			wg.Go(func() { _ = ss.Close() })
		}
		wg.Wait()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(cancelGrace):
		h.logger.Warn("some sessions did not close after their calls were cancelled")
	}
	if e := <-serveErr; e != nil && !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	h.logger.Info("HTTP server stopped")
	return err
}

// stopCalls cancels the context of every request still running, with
// cause (the first cause given, should it be called again), and of every
// request that starts later. The host is exiting then: the calls answer
// at once, without waiting for their commands (adapters.ErrHostExiting). The contexts are cancelled when it returns,
// not in goroutines of their own as context.AfterFunc would: what follows
// it (KillCommands, after a second signal) would else kill the commands
// of calls not yet cancelled, whose answers would then say that their
// command was killed, not why.
func (h *HTTPServer) stopCalls(cause error) {
	h.stopsMu.Lock()
	h.cancelStop(adapters.HostExiting(cause))
	stops := make([]context.CancelCauseFunc, 0, len(h.stops))
	for f := range h.stops {
		stops = append(stops, *f)
	}
	h.stopsMu.Unlock()
	cause = context.Cause(h.stopCtx)
	for _, f := range stops {
		f(cause)
	}
}

// onStop has stopCalls call cancel, or calls it now if stopCalls was
// called already; the function it returns undoes that.
func (h *HTTPServer) onStop(cancel context.CancelCauseFunc) (remove func()) {
	h.stopsMu.Lock()
	defer h.stopsMu.Unlock()
	if h.stopCtx.Err() != nil {
		cancel(context.Cause(h.stopCtx))
		return func() {}
	}
	key := &cancel
	h.stops[key] = struct{}{}
	return func() {
		h.stopsMu.Lock()
		delete(h.stops, key)
		h.stopsMu.Unlock()
	}
}

// explainSDKErrors replaces the SDK's terse plain-text answers to requests
// a client can get wrong on /mcp with ones that say why and what to do,
// keeping their status codes, which clients act on (404 tells a client to
// start a new session).
func (h *HTTPServer) explainSDKErrors(next http.Handler) http.Handler {
	explain := map[string]string{
		"session not found": "session not found: no session has this Mcp-Session-Id (it was ended with DELETE, closed after --session-idle-timeout without requests, or the server restarted); " +
			"start a new one: send initialize without the Mcp-Session-Id header, then send the ID its response returns",
		"stream ID conflicts with ongoing stream": "Conflict: the stream this GET asks for is already open on another connection: a session has one GET stream for notifications, and a request's stream resumes on one connection at a time. " +
			"Keep the open one, or close it first (a connection whose client went away is closed once writes to it fail, within about a minute)",
	}
	if h.opts.Stateless {
		explain["Method Not Allowed"] = "Method Not Allowed: this server runs with --stateless, so it keeps no sessions: there is no GET stream for notifications and no session to DELETE; send every request with POST"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !h.opts.Stateless && r.Header.Get("Mcp-Session-Id") == "" {
			// No answer to a POST that starts a session needs explaining:
			// it is left as it is written, with no wrapper.
			next.ServeHTTP(w, r)
			return
		}
		ew := &explainWriter{ResponseWriter: w, explain: explain}
		defer ew.finish()
		next.ServeHTTP(ew, r)
	})
}

// explainWriter holds back a plain-text 404, 405 or 409 to look at its
// body, and writes it as explainSDKErrors's table says.
type explainWriter struct {
	http.ResponseWriter
	explain map[string]string
	held    int // the status held back
	body    bytes.Buffer
}

func (e *explainWriter) WriteHeader(code int) {
	if e.held == 0 && (code == http.StatusNotFound || code == http.StatusMethodNotAllowed || code == http.StatusConflict) &&
		strings.HasPrefix(e.Header().Get("Content-Type"), "text/plain") {
		e.held = code
		return
	}
	e.ResponseWriter.WriteHeader(code)
}

func (e *explainWriter) Write(b []byte) (int, error) {
	if e.held != 0 {
		if e.body.Len() < 4<<10 {
			e.body.Write(b)
		}
		return len(b), nil
	}
	return e.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the response underneath.
func (e *explainWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

func (e *explainWriter) finish() {
	if e.held == 0 {
		return
	}
	body := e.body.Bytes()
	if msg, ok := e.explain[strings.TrimSpace(string(body))]; ok {
		body = []byte(msg + "\n")
		e.Header().Del("Content-Length")
	}
	e.ResponseWriter.WriteHeader(e.held)
	_, _ = e.ResponseWriter.Write(body)
}

// endOnShutdown ends a streamable HTTP GET that waits for server messages
// when a shutdown starts: its request's context is cancelled, which the SDK
// takes as the client leaving. A GET that resumes the stream of a request
// (Last-Event-ID naming it) carries that request's answer and is left to
// finish like a POST; the SDK's event IDs are "<stream>_<index>", and the
// standalone stream's ID is empty.
func (h *HTTPServer) endOnShutdown(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			if id := r.Header.Get("Last-Event-ID"); id == "" || strings.HasPrefix(id, "_") {
				ctx, cancel := context.WithCancel(r.Context())
				defer cancel()
				stop := context.AfterFunc(h.streamsCtx, cancel)
				defer stop()
				r = r.WithContext(ctx)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// streamablePOST looks into the POSTs to /mcp before the SDK's handler
// serves them.
//
// A request whose params have a value of the wrong type gets a JSON-RPC
// error that names the parameter (see paramsProblem), in either mode.
//
// On a server with sessions (a stateless request is a session of its own:
// no notification can cancel it, and none needs a session ID), a POST
// without Mcp-Session-Id that does not initialize gets 400 with a JSON-RPC
// error saying what to send, as the spec asks of servers that require
// sessions (the SDK would make it a session that refuses it), and the
// calls of a POST are tracked until it ends, and notifications/cancelled
// marks them; the answer to a call the client cancelled is then dropped
// from its stream, which ends without it (the spec says no response is sent
// for a cancelled request).
func (h *HTTPServer) streamablePOST(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete && !h.opts.Stateless {
			h.cancelSessionCalls(next, r)
			next.ServeHTTP(w, r)
			return
		}
		body, _ := r.Body.(*readBody)
		if r.Method != http.MethodPost || body == nil {
			next.ServeHTTP(w, r)
			return
		}
		msgs, batch, ok := peekMessages(body.data)
		// From 2026-07-28 on, the SDK may answer a call after it has
		// started with a plain JSON error and a status of its own (a
		// protocol-level error, SEP-2575), setting the headers then: such
		// a stream is left to start with its first event.
		if n := countCalls(msgs); n > 0 && !newProtocolPOST(r, body.data) {
			r = r.WithContext(context.WithValue(r.Context(), postCallsKey{}, n))
		}
		if sid := r.Header.Get("Mcp-Session-Id"); !ok && sid != "" && !h.opts.Stateless && !h.hasSession(sid) {
			// A session that is gone is said first (404, so that the
			// client starts a new one), whatever the body.
			next.ServeHTTP(w, r)
			return
		}
		if !ok {
			// A body that is not JSON gets the JSON-RPC parse error, as a
			// line that is not JSON does on stdio (the SDK answers it in
			// plain text); anything else that is not JSON-RPC, the SDK
			// answers.
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" && !tooDeep(body.data, maxDepth) && !json.Valid(body.data) {
				if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
					*n = "parse error"
				}
				writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "Parse error: the body is not valid JSON")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		sid := r.Header.Get("Mcp-Session-Id")
		if sid == "" && !h.opts.Stateless {
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" && needsSession(r, body.data, msgs) {
				refuseWithoutSession(w, r, msgs)
				return
			}
			if startsSession(msgs) && h.atSessionLimit() {
				h.refuseSession(w, r, msgs)
				return
			}
		}
		if slices.ContainsFunc(msgs, func(m peekedMessage) bool { return m.Method == "subscriptions/listen" }) {
			if len(body.data) > maxListenBody {
				refuseListen(w, r, msgs, http.StatusRequestEntityTooLarge, "listen body too large", jsonrpc.CodeInvalidRequest,
					fmt.Sprintf("the subscriptions/listen request is %d bytes long, longer than the %d bytes toolhost takes for one (it holds the request for as long as the stream is open); list each resource URI once, and open another stream for the rest", len(body.data), maxListenBody))
				return
			}
			n := int64(len(body.data))
			if held := h.listenBytes.Add(n); held > maxListenBodies {
				h.listenBytes.Add(-n)
				h.logger.Warn("a subscriptions/listen stream was refused: the open streams hold as many bytes of requests as toolhost allows", "max_listen_bytes", maxListenBodies)
				w.Header().Set("Retry-After", "30")
				refuseListen(w, r, msgs, http.StatusServiceUnavailable, "listen streams full", jsonrpc.CodeInternalError,
					fmt.Sprintf("the open subscriptions/listen streams hold %d bytes of requests, and this one would take them past the %d toolhost allows in all; try again later, and close the streams you no longer read", held-n, maxListenBodies))
				return
			}
			defer h.listenBytes.Add(-n)
			if h.opts.Stateless && h.atSessionLimit() {
				// Each stream is a session of its own, open as long as
				// the stream is.
				h.logger.Warn("a subscriptions/listen stream was refused: the server has as many sessions open as --max-sessions allows", "max_sessions", h.opts.MaxSessions)
				w.Header().Set("Retry-After", "30")
				refuseListen(w, r, msgs, http.StatusServiceUnavailable, "too many sessions", jsonrpc.CodeInternalError,
					fmt.Sprintf("the server has %d sessions open, subscriptions/listen streams included, as many as it takes (its operator sets the number with --max-sessions); try again later, and close the streams you no longer read", h.opts.MaxSessions))
				return
			}
		}
		if data, changed := withoutNullArgumentsInBody(body.data, msgs, batch); changed {
			r.Body = &readBody{Reader: bytes.NewReader(data), data: data}
			r.ContentLength = int64(len(data))
		}
		if !batch && len(msgs) == 1 && msgs[0].isCall() {
			if msg := paramsProblem(msgs[0].Method, msgs[0].Params); msg != "" {
				refuseParams(w, r, msgs[0].ID, msg)
				return
			}
			nw := &notHandledWriter{ResponseWriter: w}
			defer nw.finish(r, msgs[0])
			w = nw
		}
		if sid == "" || h.opts.Stateless {
			next.ServeHTTP(w, r)
			return
		}
		var mine map[jsonrpc.ID]*trackedCall
		for _, m := range msgs {
			switch {
			case m.isCall():
				id, err := jsonrpc.MakeID(m.ID)
				if err != nil {
					continue
				}
				if c := h.calls.add(sid, id); c != nil {
					if mine == nil {
						mine = map[jsonrpc.ID]*trackedCall{}
					}
					mine[id] = c
					defer h.calls.remove(sid, id, c)
				}
			case m.Method == "notifications/cancelled":
				var p struct {
					RequestID any `json:"requestId"`
				}
				if json.Unmarshal(m.Params, &p) == nil && p.RequestID != nil {
					if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
						h.calls.cancel(sid, id)
					}
				}
			}
		}
		if mine != nil {
			w = &cancelWriter{ResponseWriter: w, calls: mine}
		}
		next.ServeHTTP(w, r)
	})
}

// countCalls counts the requests among msgs that expect an answer.
func countCalls(msgs []peekedMessage) int {
	n := 0
	for i := range msgs {
		if msgs[i].isCall() {
			n++
		}
	}
	return n
}

// cancelSessionCalls cancels the calls in flight on the session a DELETE
// ends, as if the client had sent notifications/cancelled for each: the SDK
// would otherwise wait for them to finish (a slow command runs on) before
// it answers the DELETE, then drop their answers. Each cancellation goes to
// the SDK's handler as the client's would, so that the SDK cancels the
// call's context; the streams of those calls then end without an answer.
func (h *HTTPServer) cancelSessionCalls(sdk http.Handler, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		return
	}
	for _, id := range h.calls.inSession(sid) {
		h.calls.cancel(sid, id)
		note, err := json.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"method":  "notifications/cancelled",
			"params":  map[string]any{"requestId": id.Raw(), "reason": "the client ended the session"},
		})
		if err != nil {
			continue
		}
		req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, r.URL.String(), bytes.NewReader(note))
		if err != nil {
			continue
		}
		req.Host = r.Host
		req.RemoteAddr = r.RemoteAddr
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
			req.Header.Set("Mcp-Protocol-Version", v)
		}
		sdk.ServeHTTP(discardResponse{}, req)
	}
}

// discardResponse is a response nobody reads: the SDK's 202 to a
// cancellation cancelSessionCalls sends on the client's behalf.
type discardResponse map[string][]string

func (d discardResponse) Header() http.Header       { return http.Header(d) }
func (discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (discardResponse) WriteHeader(int)             {}

// notHandledWriter turns the SDK's answer to a request for a method it
// does not serve (on protocols before 2026-07-28, a plain-text 400 "JSON
// RPC not handled: ...") into the JSON-RPC error stdio gives, -32601
// "method not found", so that a client can tell a method the server
// lacks from a broken transport. Any other answer passes through.
type notHandledWriter struct {
	http.ResponseWriter
	held bool // a 400 is being held back to look at its body
	body bytes.Buffer
}

func (n *notHandledWriter) WriteHeader(code int) {
	if code == http.StatusBadRequest && !n.held {
		n.held = true
		return
	}
	n.ResponseWriter.WriteHeader(code)
}

func (n *notHandledWriter) Write(b []byte) (int, error) {
	if n.held {
		if n.body.Len() < 64<<10 {
			n.body.Write(b)
		}
		return len(b), nil
	}
	return n.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the response underneath.
func (n *notHandledWriter) Unwrap() http.ResponseWriter { return n.ResponseWriter }

// finish writes the 400 held back: as a JSON-RPC error when it was the
// SDK's "not handled", as it was otherwise.
func (n *notHandledWriter) finish(r *http.Request, m peekedMessage) {
	if !n.held {
		return
	}
	const prefix = "JSON RPC not handled: "
	if text := n.body.String(); strings.HasPrefix(text, prefix) {
		if note, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
			*note = "method not found"
		}
		writeRPCError(n.ResponseWriter, http.StatusOK, m.ID, jsonrpc.CodeMethodNotFound, fmt.Sprintf("method not found: %q", m.Method))
		return
	}
	n.ResponseWriter.WriteHeader(http.StatusBadRequest)
	_, _ = n.ResponseWriter.Write(n.body.Bytes())
}

// peekedMessage is what streamablePOST reads of a JSON-RPC message.
type peekedMessage struct {
	ID     any             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (m *peekedMessage) isCall() bool { return m.Method != "" && m.ID != nil }

func (m *peekedMessage) isResponse() bool {
	return m.Method == "" && m.ID != nil && (m.Result != nil || m.Error != nil)
}

// peekMessages decodes a POST body: one message or a batch (batch true).
// It reports false for what is not JSON-RPC, or nests deeper than the SDK
// allows (the SDK answers those). Keys match case-sensitively, as the SDK
// reads them: a "Params" key is none.
func peekMessages(body []byte) (msgs []peekedMessage, batch, ok bool) {
	body = bytes.TrimLeft(body, " \t\r\n")
	// segmentio's parser recurses once per level, without a limit: a body
	// of a million brackets would overflow the stack and end the process.
	// Past the SDK's own limit, the SDK answers (with its depth error).
	if tooDeep(body, maxDepth) {
		return nil, false, false
	}
	if len(body) > 0 && body[0] == '[' {
		var ms []peekedMessage
		if _, err := sjson.Parse(body, &ms, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
			return nil, true, false
		}
		return ms, true, true
	}
	var m peekedMessage
	if _, err := sjson.Parse(body, &m, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return nil, false, false
	}
	return []peekedMessage{m}, false, true
}

// newProtocolPOST reports whether a POST is of the 2026-07-28 protocol or
// a later one: its version header says so, or its body carries the
// version in _meta, as that protocol's requests do.
func newProtocolPOST(r *http.Request, body []byte) bool {
	return r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" || bytes.Contains(body, []byte(mcp.MetaKeyProtocolVersion))
}

// needsSession reports whether a POST without Mcp-Session-Id must have one:
// it does not initialize, and it is not of the 2026-07-28 protocol (whose
// requests the SDK answers with the versions a server with sessions takes,
// so that the client falls back to initialize).
func needsSession(r *http.Request, body []byte, msgs []peekedMessage) bool {
	if newProtocolPOST(r, body) {
		return false
	}
	for _, m := range msgs {
		if m.Method == "initialize" || m.Method == "server/discover" {
			return false
		}
	}
	return true
}

// refuseWithoutSession answers 400 Bad Request with a JSON-RPC error (with
// the request's id, when the body is one request) to a POST that needs
// Mcp-Session-Id and has none.
func refuseWithoutSession(w http.ResponseWriter, r *http.Request, msgs []peekedMessage) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = "no session id"
	}
	var id any
	if len(msgs) == 1 && msgs[0].isCall() {
		id = msgs[0].ID
	}
	what := "this message"
	if len(msgs) == 1 && msgs[0].Method != "" {
		what = strconv.Quote(msgs[0].Method)
	}
	writeRPCError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest,
		fmt.Sprintf("Bad Request: %s was sent without the Mcp-Session-Id header, and this server keeps sessions: "+
			"send initialize first, then send the Mcp-Session-Id header that its response returns with every request", what))
}

// writeRPCError answers a POST with a JSON-RPC error (id nil: null).
func writeRPCError(w http.ResponseWriter, status int, id any, code int64, msg string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": code, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// refuseParams answers a request whose params have a value of the wrong
// type (see paramsProblem) with a JSON-RPC error naming the parameter.
func refuseParams(w http.ResponseWriter, r *http.Request, id any, msg string) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = "invalid params"
	}
	writeRPCError(w, http.StatusOK, id, jsonrpc.CodeInvalidParams, msg)
}

// callTracker follows the calls in flight on the POSTs of streamable HTTP
// sessions, and which of them the client cancelled.
type callTracker struct {
	mu    sync.Mutex
	calls map[trackedKey]*trackedCall
	// cancelled counts the tracked calls that were cancelled: while it is
	// 0, nothing needs a look.
	cancelled atomic.Int64
}

type trackedKey struct {
	session string
	id      jsonrpc.ID
}

// trackedCall is a call of a POST in flight.
type trackedCall struct {
	cancelled atomic.Bool
	// stored is set once the event store has kept its answer (emptied).
	stored atomic.Bool
}

// add tracks a call, or returns nil when its id is already in flight on
// the session (the SDK refuses the new one; the first keeps its entry).
func (t *callTracker) add(session string, id jsonrpc.ID) *trackedCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := trackedKey{session, id}
	if t.calls[k] != nil {
		return nil
	}
	c := &trackedCall{}
	t.calls[k] = c
	return c
}

// remove stops tracking c, once the POST that carried it has ended.
func (t *callTracker) remove(session string, id jsonrpc.ID, c *trackedCall) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := trackedKey{session, id}
	if t.calls[k] == c {
		delete(t.calls, k)
		if c.cancelled.Load() {
			t.cancelled.Add(-1)
		}
	}
}

// cancel marks a call in flight as cancelled by the client.
func (t *callTracker) cancel(session string, id jsonrpc.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.calls[trackedKey{session, id}]; c != nil && c.cancelled.CompareAndSwap(false, true) {
		t.cancelled.Add(1)
	}
}

// inSession lists the ids of the calls in flight on a session.
func (t *callTracker) inSession(session string) []jsonrpc.ID {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []jsonrpc.ID
	for k := range t.calls {
		if k.session == session {
			ids = append(ids, k.id)
		}
	}
	return ids
}

// answerCancelled reports whether an answer with the id about to be stored
// for a session answers a call the client cancelled. Only the first answer
// counts: a new call that reuses the id before the old POST has ended
// keeps its own.
func (t *callTracker) answerCancelled(session string, id jsonrpc.ID) bool {
	if t.cancelled.Load() == 0 {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.calls[trackedKey{session, id}]
	return c != nil && c.cancelled.Load() && !c.stored.Swap(true)
}

// responseTo returns the id of the call that a JSON-RPC message answers,
// and false for any other message.
func responseTo(data []byte) (jsonrpc.ID, bool) {
	var m peekedMessage
	if json.Unmarshal(data, &m) != nil || !m.isResponse() {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(m.ID)
	return id, err == nil
}

// cancelWriter is the response of a POST whose calls are tracked: it drops
// the SSE event that answers one the client cancelled. (The SDK writes each
// event with one Write.)
type cancelWriter struct {
	http.ResponseWriter
	calls map[jsonrpc.ID]*trackedCall
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	if w.anyCancelled() {
		if i := bytes.Index(p, []byte("data: ")); i >= 0 && (i == 0 || p[i-1] == '\n') {
			data, _, _ := bytes.Cut(p[i+len("data: "):], []byte("\n"))
			if id, ok := responseTo(data); ok {
				if c := w.calls[id]; c != nil && c.cancelled.Load() {
					return len(p), nil
				}
			}
		}
	}
	return w.ResponseWriter.Write(p)
}

func (w *cancelWriter) anyCancelled() bool {
	for _, c := range w.calls {
		if c.cancelled.Load() {
			return true
		}
	}
	return false
}

func (w *cancelWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// cancelAwareStore is the event store of streamable HTTP sessions. It keeps
// the answer to a cancelled call as an empty event (the SDK's event
// indexes stay aligned, and a resumed stream skips empty events), so that
// no resumption delivers it either.
type cancelAwareStore struct {
	mcp.EventStore
	calls   *callTracker
	streams *sessionStreams
	// onClose is told of each session that ends.
	onClose func(sessionID string)
}

func (s *cancelAwareStore) SessionClosed(ctx context.Context, sessionID string) error {
	s.streams.SessionClosed(sessionID)
	s.onClose(sessionID)
	return s.EventStore.SessionClosed(ctx, sessionID)
}

func (s *cancelAwareStore) Append(ctx context.Context, sessionID, streamID string, data []byte) error {
	dropped := false
	if len(data) > 0 && s.calls.cancelled.Load() > 0 {
		if id, ok := responseTo(data); ok && s.calls.answerCancelled(sessionID, id) {
			data, dropped = nil, true
		}
	}
	if err := s.EventStore.Append(ctx, sessionID, streamID, data); err != nil {
		return err
	}
	s.streams.Append(sessionID, streamID, dropped)
	return nil
}

// callMiddleware applies the request timeout to every MCP request, counts
// the requests in flight and ties them to the shutdown's last resort.
func (h *HTTPServer) callMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		if extra := req.GetExtra(); extra != nil && extra.Header != nil {
			h.waiters.callStarted(extra.Header)
		}
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && h.statelessSession(ss) {
			// The call cannot ask the client anything; confirm and ask say
			// why (--stateless) instead of blaming the client.
			ctx = withStateless(ctx)
			if method == "initialize" {
				// Only clients before 2026-07-28 initialize, and no
				// notification reaches them between their requests: no
				// list changes, no resource updates.
				defer func() {
					if r, ok := res.(*mcp.InitializeResult); ok && r.Capabilities != nil {
						r.Capabilities = withoutNotifications(r.Capabilities)
					}
				}()
			}
			if method != "logging/setLevel" && !newProtocol(ss) {
				// The SDK gives each stateless request a session whose level
				// is info, as if the client had set it. No client did (a
				// level cannot outlive its request here): the default
				// applies, as it does on sessions that never set one.
				_, _ = next(ctx, "logging/setLevel", &mcp.ServerRequest[*mcp.SetLoggingLevelParams]{
					Session: ss,
					Params:  &mcp.SetLoggingLevelParams{Level: DefaultLogLevel},
				})
			}
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ctx, cancelWhy := context.WithCancelCause(ctx)
		defer cancelWhy(nil)
		defer h.onStop(cancelWhy)()
		if method == "subscriptions/listen" {
			// A listen stream lasts as long as the client wants it, or
			// until a shutdown starts.
			stopListen := context.AfterFunc(h.streamsCtx, cancel)
			defer stopListen()
			return next(ctx, method, req)
		}
		h.inflight.Add(1)
		defer h.inflight.Add(-1)
		if h.opts.RequestTimeout <= 0 {
			return next(ctx, method, req)
		}
		ctx, cancelT := context.WithTimeoutCause(ctx, h.opts.RequestTimeout, errRequestTimeout)
		defer cancelT()
		res, err = next(ctx, method, req)
		if context.Cause(ctx) == errRequestTimeout {
			msg := fmt.Sprintf("the request ran longer than the server's request timeout (%s) and was stopped; the server's operator can raise it with --request-timeout", h.opts.RequestTimeout)
			if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
				// The _meta stays: after a reload that renamed the server it
				// holds the identity in service (Server.describe).
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}, Meta: r.Meta}
			} else if err != nil {
				err = errors.New(msg)
			}
		}
		return res, err
	}
}

// withoutNotifications is c without the capabilities that promise
// notifications between requests (listChanged, resource subscriptions).
func withoutNotifications(c *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	out := *c
	if c.Tools != nil {
		t := *c.Tools
		t.ListChanged = false
		out.Tools = &t
	}
	if c.Resources != nil {
		r := *c.Resources
		r.ListChanged, r.Subscribe = false, false
		out.Resources = &r
	}
	if c.Prompts != nil {
		p := *c.Prompts
		p.ListChanged = false
		out.Prompts = &p
	}
	return &out
}

// errRequestTimeout is the cause of a request's cancellation by
// RequestTimeout.
var errRequestTimeout = errors.New("request timeout")

// statelessSession reports whether ss is the one-request session of a
// streamable HTTP request in --stateless mode (SSE sessions are never
// stateless).
func (h *HTTPServer) statelessSession(ss *mcp.ServerSession) bool {
	return h.opts.Stateless && !h.sse.has(ss.ID())
}

// hasSession reports whether the SDK serves a session with this ID.
func (h *HTTPServer) hasSession(sid string) bool {
	for ss := range h.srv.MCP().Sessions() {
		if ss.ID() == sid {
			return true
		}
	}
	return false
}

// startsSession reports whether a POST without Mcp-Session-Id starts a
// session: it initializes.
func startsSession(msgs []peekedMessage) bool {
	for i := range msgs {
		if msgs[i].Method == "initialize" {
			return true
		}
	}
	return false
}

// atSessionLimit reports whether MaxSessions sessions are open. Two
// sessions that start at the same moment may both pass: the cap is a
// bound on memory, not an exact count.
func (h *HTTPServer) atSessionLimit() bool {
	n := 0
	for range h.srv.MCP().Sessions() {
		if n++; n >= h.opts.MaxSessions {
			return true
		}
	}
	return false
}

// refuseSession answers a request that would open a session past
// MaxSessions: 503, to try again later, with a JSON-RPC error saying why.
func (h *HTTPServer) refuseSession(w http.ResponseWriter, r *http.Request, msgs []peekedMessage) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = "too many sessions"
	}
	h.logger.Warn("a new session was refused: the server has as many as --max-sessions allows", "max_sessions", h.opts.MaxSessions)
	w.Header().Set("Retry-After", "30")
	var id any
	if len(msgs) == 1 && msgs[0].isCall() {
		id = msgs[0].ID
	}
	writeRPCError(w, http.StatusServiceUnavailable, id, jsonrpc.CodeInternalError,
		fmt.Sprintf("the server has %d sessions open, as many as it takes (its operator sets the number with --max-sessions); try again later, and end sessions you no longer use with DELETE", h.opts.MaxSessions))
}

// maxListenBodies is the most bytes the requests of all open
// subscriptions/listen streams may add up to: each stream holds its
// request, in several copies, for as long as it is open.
const maxListenBodies = 4 << 20

// refuseListen answers a subscriptions/listen POST that toolhost does not
// take with status and a JSON-RPC error of code with msg; note is what the
// access log says.
func refuseListen(w http.ResponseWriter, r *http.Request, msgs []peekedMessage, status int, note string, code int64, msg string) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = note
	}
	var id any
	if len(msgs) == 1 && msgs[0].isCall() {
		id = msgs[0].ID
	}
	writeRPCError(w, status, id, code, msg)
}

// newProtocol reports whether ss speaks the sessionless 2026-07-28
// protocol, whose requests carry their own log level.
func newProtocol(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= "2026-07-28"
}

// InFlight returns the number of MCP requests being handled.
func (h *HTTPServer) InFlight() int64 { return h.inflight.Load() }

// serveHealth answers whether the process is up.
func (h *HTTPServer) serveHealth(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: use GET", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, "ok\n")
}

// readyStatus is the body of /readyz. It is served without
// authentication, so it says nothing a probe does not need: no file paths.
type readyStatus struct {
	Status    string `json:"status"`
	Server    string `json:"server,omitempty"`
	Tools     int    `json:"tools"`
	Resources int    `json:"resources"`
	Prompts   int    `json:"prompts"`
	Stateless bool   `json:"stateless"`
	// InFlight is the number of MCP requests being handled.
	InFlight int64 `json:"calls_in_flight"`
}

// serveReady answers whether the server takes requests: a valid config is
// in service (a config with errors never is, and a broken edit keeps the
// last valid one) and no shutdown has started.
func (h *HTTPServer) serveReady(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: use GET", http.StatusMethodNotAllowed)
		return
	}
	st := readyStatus{Status: "ready", Stateless: h.opts.Stateless, InFlight: h.inflight.Load()}
	code := http.StatusOK
	if reg := h.srv.Registry(); reg == nil || reg.Config == nil {
		st.Status, code = "no config in service", http.StatusServiceUnavailable
	} else {
		if reg.Config.Server != nil {
			st.Server = reg.Config.Server.Name
		}
		st.Tools, st.Resources, st.Prompts = len(reg.Tools), len(reg.Resources)+len(reg.Templates), len(reg.Prompts)
	}
	if h.shutting.Load() {
		st.Status, code = "shutting down", http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(st)
}

func serveNotFound(w http.ResponseWriter, r *http.Request) {
	http.Error(w, fmt.Sprintf("404 page not found: %s\ntoolhost serves MCP at /mcp (streamable HTTP) and /sse (legacy SSE), and health at /healthz and /readyz.", r.URL.Path), http.StatusNotFound)
}

// guard checks what every MCP endpoint requires: an allowed Host and Origin
// (DNS-rebinding protection), the bearer token when one is set, and a body
// no larger than the limit, read within the body read timeout. It answers CORS
// preflights from allowed origins.
func (h *HTTPServer) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := h.policy.Load()
		if !p.hostAllowed(r.Host) {
			refuse(w, r, http.StatusForbidden, "host not allowed",
				fmt.Sprintf("Forbidden: Host %q is not allowed. If clients reach toolhost under this name, add it with --allowed-hosts %s", r.Host, hostOnly(r.Host)))
			return
		}
		origin := r.Header.Get("Origin")
		if origin != "" {
			if !p.originAllowed(origin) {
				fix := fmt.Sprintf("If this web page should reach toolhost, add it with --allowed-origins %s", origin)
				if origin == "null" {
					// Sandboxed frames, file: pages and some redirects send
					// "null": allowing it would allow every one of them.
					fix = "Browsers send Origin: null from sandboxed frames, file: pages and cross-origin redirects, so it names no site to allow; " +
						"serve the page from an http(s) origin and add that with --allowed-origins"
				}
				refuse(w, r, http.StatusForbidden, "origin not allowed",
					fmt.Sprintf("Forbidden: Origin %q is not allowed. %s", origin, fix))
				return
			}
			corsHeaders(w.Header(), origin)
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if h.opts.AuthToken != "" && !h.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolhost"`)
			msg := "Unauthorized: send the token as the header Authorization: Bearer TOKEN (the token is in the environment variable named by --auth-token-env where toolhost runs)"
			if a := strings.TrimSpace(r.Header.Get("Authorization")); a != "" {
				scheme, token, _ := strings.Cut(a, " ")
				switch {
				case !strings.Contains(a, " ") && !strings.EqualFold(a, "Bearer"):
					// A value alone is no scheme: most often the token
					// without "Bearer ". It is not repeated as a scheme.
					msg = "Unauthorized: the Authorization header has no scheme: send the token as Authorization: Bearer TOKEN"
				case strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) == "":
					// "Bearer " and nothing: the client's variable for the
					// token is empty or unset where it runs. No token was
					// sent, so no error code either.
					msg = "Unauthorized: the Authorization header has no token after Bearer: the client sent an empty token (is the variable it takes the token from set where the client runs?)"
				case !strings.EqualFold(scheme, "Bearer"):
					// Another scheme is no bearer token at all: RFC 6750
					// (3.1) asks for no error code then.
					msg = fmt.Sprintf("Unauthorized: toolhost takes a bearer token, not %s credentials: send the header Authorization: Bearer TOKEN", scheme)
				default:
					w.Header().Set("WWW-Authenticate", `Bearer realm="toolhost", error="invalid_token"`)
					msg = "Unauthorized: the bearer token is not the one toolhost was started with"
				}
			}
			refuse(w, r, http.StatusUnauthorized, "unauthorized", msg)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			if r.ContentLength > h.opts.MaxBodyBytes {
				refuse(w, r, http.StatusRequestEntityTooLarge, "body too large",
					fmt.Sprintf("request body is %d bytes; the limit is %d (--max-message-size)", r.ContentLength, h.opts.MaxBodyBytes))
				return
			}
			body, ok := h.readBody(w, r)
			if !ok {
				return
			}
			r.Body = body
		}
		next.ServeHTTP(w, r)
	})
}

// authorized reports whether r carries the bearer token. Both sides are
// hashed first, so the comparison takes the same time whatever the token's
// length.
func (h *HTTPServer) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], h.tokenHash[:]) == 1
}

// refuse answers an error and notes the reason for the access log.
func refuse(w http.ResponseWriter, r *http.Request, code int, reason, msg string) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = reason
	}
	http.Error(w, msg, code)
}

func corsHeaders(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
	h.Set("Access-Control-Max-Age", "600")
}

// readBody reads a request's body, no larger than the limit, within the
// body read timeout, so that a body sent without a length (chunked) is
// refused like one whose length is declared. It answers the error and
// reports false when the body cannot be read.
func (h *HTTPServer) readBody(w http.ResponseWriter, r *http.Request) (*readBody, bool) {
	timeout := h.opts.BodyReadTimeout
	if timeout <= 0 {
		timeout = DefaultBodyReadTimeout
	}
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(timeout)) == nil
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	slow := errors.Is(err, os.ErrDeadlineExceeded)
	if deadline && !slow {
		// A response streamed for long afterwards is not cut by it.
		_ = rc.SetReadDeadline(time.Time{})
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		refuse(w, r, http.StatusRequestEntityTooLarge, "body too large",
			fmt.Sprintf("request body exceeds %d bytes, the limit (--max-message-size)", h.opts.MaxBodyBytes))
		return nil, false
	case slow:
		// The rest of the body may never come. Without this, the server
		// would wait to read it before it answers (to reuse the
		// connection), holding the connection for as long as the client
		// likes, and the answer would never go out.
		w.Header().Set("Connection", "close")
		refuse(w, r, http.StatusRequestTimeout, "body too slow",
			fmt.Sprintf("the request body did not arrive within %s; send it at once", timeout))
		return nil, false
	case err != nil:
		refuse(w, r, http.StatusBadRequest, "body unreadable", "cannot read the request body: "+err.Error())
		return nil, false
	}
	return &readBody{Reader: bytes.NewReader(data), data: data}, true
}

// readBody is a request body read in full by guard, for the SDK's handlers
// to read again and for streamablePOST to look into.
type readBody struct {
	*bytes.Reader
	data []byte
}

func (*readBody) Close() error { return nil }

// originPolicy is the Host and Origin allow-list.
type originPolicy struct {
	anyHost, anyOrigin bool
	// hosts maps a lower-case host name to the ports allowed with it; an
	// empty port allows any.
	hosts   map[string][]string
	origins map[string]bool
}

// newOriginPolicy allows the listen host (unless it is a wildcard address)
// and localhost, 127.0.0.1 and [::1], all with the listen port, plus the
// extra hosts; and the origins of all of those, plus the extra origins.
func newOriginPolicy(addr string, extraHosts, extraOrigins []string) (*originPolicy, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", addr, err)
	}
	p := &originPolicy{hosts: map[string][]string{}, origins: map[string]bool{}}
	add := func(h, port string) {
		h = normHost(h)
		if !slices.Contains(p.hosts[h], port) {
			p.hosts[h] = append(p.hosts[h], port)
		}
	}
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		add(h, port)
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		add(host, port)
	}
	for _, e := range extraHosts {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			continue
		case e == "*":
			p.anyHost = true
			continue
		case strings.Contains(e, "/"):
			return nil, fmt.Errorf("--allowed-hosts %q: give a host name with an optional port, as in mcp.example.com or mcp.example.com:8443, not a URL", e)
		case strings.Contains(e, "*"):
			// It would be taken as a name, which no Host matches.
			return nil, fmt.Errorf("--allowed-hosts %q: patterns are not supported: list every name clients use, as in --allowed-hosts a.example.com,b.example.com, or give * alone to accept any Host (when a proxy in front checks it)", e)
		}
		h, pt, err := net.SplitHostPort(e)
		if err != nil {
			// No port: any port.
			h, pt = strings.Trim(e, "[]"), ""
		} else if n, err := strconv.Atoi(pt); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("--allowed-hosts %q: the port is not a number from 1 to 65535: give a host name with an optional port, as in mcp.example.com:8443", e)
		}
		add(h, pt)
	}
	for _, e := range extraOrigins {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			continue
		case e == "*":
			p.anyOrigin = true
			continue
		case strings.Contains(e, "*"):
			return nil, fmt.Errorf("--allowed-origins %q: patterns are not supported: list every origin, as in --allowed-origins https://a.example.com,https://b.example.com, or give * alone to accept any", e)
		}
		o, ok := normOrigin(e)
		if !ok {
			return nil, fmt.Errorf("--allowed-origins %q: give an origin as scheme://host[:port], as in https://app.example.com", e)
		}
		p.origins[o] = true
	}
	return p, nil
}

// hostAllowed reports whether a Host header value is allowed.
func (p *originPolicy) hostAllowed(hostport string) bool {
	if p.anyHost {
		return true
	}
	h, port, err := net.SplitHostPort(hostport)
	if err != nil {
		h, port = strings.Trim(hostport, "[]"), ""
	}
	ports, ok := p.hosts[normHost(h)]
	if !ok {
		return false
	}
	for _, pt := range ports {
		// A Host without a port is on its scheme's default one, which
		// it does not name: 80 or 443.
		if pt == "" || pt == port || (port == "" && (pt == "80" || pt == "443")) {
			return true
		}
	}
	return false
}

// originAllowed reports whether an Origin header value is allowed: it is
// listed, or it is http(s) on an allowed Host (the server's own pages).
func (p *originPolicy) originAllowed(origin string) bool {
	if p.anyOrigin {
		return true
	}
	o, ok := normOrigin(origin)
	if !ok {
		return false
	}
	if p.origins[o] {
		return true
	}
	u, _ := url.Parse(o)
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	hostport := u.Host
	if u.Port() == "" {
		def := "80"
		if u.Scheme == "https" {
			def = "443"
		}
		hostport = net.JoinHostPort(u.Hostname(), def)
	}
	return p.hostAllowed(hostport)
}

// hostList is the allow-list for the log.
func (p *originPolicy) hostList() []string {
	if p.anyHost {
		return []string{"*"}
	}
	var out []string
	for h, ports := range p.hosts {
		for _, pt := range ports {
			if pt == "" {
				out = append(out, h)
			} else {
				out = append(out, net.JoinHostPort(h, pt))
			}
		}
	}
	slices.Sort(out)
	return out
}

func normHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}

// normOrigin lower-cases an origin and drops a trailing slash and the
// scheme's default port (which browsers leave out); it reports false for
// what is not scheme://host[:port].
func normOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(s), "/"))
	if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", false
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if p := u.Port(); (scheme == "http" && p == "80") || (scheme == "https" && p == "443") {
		host = strings.TrimSuffix(host, ":"+p)
	}
	return scheme + "://" + host, true
}

// hostOnly strips the port of a Host value for the advice in an error.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

func isLoopbackHost(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// accessNoteKey is the context key of the access log's note: why a request
// was refused.
type accessNoteKey struct{}

// accessLog writes one structured line per request on the logger (health
// checks at debug level, so that probes do not flood the log).
func (h *HTTPServer) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		note := new(string)
		r = r.WithContext(context.WithValue(r.Context(), accessNoteKey{}, note))
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			level := slog.LevelInfo
			if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" {
				level = slog.LevelDebug
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", status),
				slog.Int64("bytes", sw.bytes),
				slog.Duration("duration", time.Since(start)),
				slog.String("remote", r.RemoteAddr),
			}
			if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
				attrs = append(attrs, slog.String("forwarded_for", xff))
			}
			if ua := r.UserAgent(); ua != "" {
				attrs = append(attrs, slog.String("user_agent", ua))
			}
			if *note != "" {
				attrs = append(attrs, slog.String("refused", *note))
			}
			h.logger.LogAttrs(context.Background(), level, "http request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}

// statusWriter records the status and size of a response. Unwrap lets
// http.ResponseController reach Flush and the deadlines underneath.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sseHandler serves the legacy HTTP+SSE transport (MCP 2024-11-05): GET
// /sse opens a session and its event stream, whose first event names the
// endpoint (/messages?session_id=ID) where the client POSTs its messages;
// replies arrive on the stream as "message" events.
type sseHandler struct {
	h *HTTPServer

	mu       sync.Mutex
	sessions map[string]*sseSession
}

// sseSession is one SSE session: the SDK's transport for it, done, closed
// when the session's connection closes, and the count of calls read but
// not yet answered, so that a shutdown ends the stream only when it has
// carried every answer.
type sseSession struct {
	id        string
	transport *mcp.SSEServerTransport
	done      chan struct{}
	closeOnce sync.Once

	pending atomic.Int64
	// sawInitialize is set once the session has read initialize.
	sawInitialize atomic.Bool
	// logger notes the calls dropped for an id in use.
	logger *slog.Logger
	// answered is signalled (without blocking) after each answer.
	answered chan struct{}

	// calls holds the calls read and not yet answered, true for those the
	// client cancelled: their answers are dropped, as the spec asks.
	mu    sync.Mutex
	calls map[jsonrpc.ID]bool
}

// Connect implements mcp.Transport.
func (s *sseSession) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := s.transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &sseConn{Connection: c, s: s}, nil
}

// SupportsProtocolVersion implements mcp.ProtocolVersionSupporter.
func (s *sseSession) SupportsProtocolVersion(v string) bool {
	return s.transport.SupportsProtocolVersion(v)
}

// sseConn is the SDK's SSE connection with the session's ID and a signal
// when it closes.
type sseConn struct {
	mcp.Connection
	s *sseSession
}

func (c *sseConn) SessionID() string { return c.s.id }

// Read returns the next message of the session. A request whose params
// have a value of the wrong type (see paramsProblem) is answered on the
// stream with an error that names the parameter, as on the other
// transports, and the next message is read instead; before initialize,
// the SDK's refusal, which says to initialize first, answers it.
//
// A call whose id is in use by a call not yet answered is dropped, with a
// warning in the log, as the SDK drops one (an answer under that id would
// be taken for the other call's). The session's own record decides, not
// the SDK's: the SDK frees an id just before it writes the answer, and a
// call that came in between would run without being counted as pending.
func (c *sseConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		m, dup, err := c.read(ctx)
		r, ok := m.(*jsonrpc.Request)
		if dup {
			if c.s.logger != nil {
				c.s.logger.Warn("dropped a call whose id is in use by a call not yet answered; give each call in flight its own id",
					"session", c.s.id, "id", formatID(r.ID), "method", r.Method)
			}
			continue
		}
		if !ok || !r.IsCall() || !c.s.sawInitialize.Load() {
			return m, err
		}
		msg := paramsProblem(r.Method, r.Params)
		if msg == "" {
			return m, err
		}
		resp := &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}}
		if werr := c.Write(ctx, resp); werr != nil {
			return nil, werr
		}
	}
}

// read is Read before the params check: it rewrites null prompt arguments
// and keeps account of the calls. dup reports a call whose id is in use by
// another.
func (c *sseConn) read(ctx context.Context) (m jsonrpc.Message, dup bool, err error) {
	m, err = c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok {
		if p, changed := withoutNullArguments(r.Method, r.Params); changed {
			r.Params = p
		}
		if r.Method == "initialize" {
			c.s.sawInitialize.Store(true)
		}
		switch {
		case r.IsCall():
			c.s.mu.Lock()
			// A call whose id is in use is dropped (see Read); the first
			// call keeps its entry. pending counts the entries.
			if _, dup = c.s.calls[r.ID]; !dup {
				c.s.calls[r.ID] = false
				c.s.pending.Add(1)
			}
			c.s.mu.Unlock()
		case r.Method == "notifications/cancelled":
			if id, ok := cancelledID(r.Params); ok {
				c.s.mu.Lock()
				if _, running := c.s.calls[id]; running {
					c.s.calls[id] = true
				}
				c.s.mu.Unlock()
			}
		}
	}
	return m, dup, err
}

// Write sends a message on the stream, except the answer to a call the
// client cancelled: the spec says none is sent. An error the SDK gives
// without a JSON-RPC code goes out with a standard one, as on stdio (see
// standardError), not as code 0.
func (c *sseConn) Write(ctx context.Context, m jsonrpc.Message) error {
	resp, isResp := m.(*jsonrpc.Response)
	if !isResp {
		return c.Connection.Write(ctx, m)
	}
	if resp.Error != nil {
		resp.Error = standardError(resp.Error)
	}
	c.s.mu.Lock()
	cancelled, tracked := c.s.calls[resp.ID]
	delete(c.s.calls, resp.ID)
	c.s.mu.Unlock()
	var err error
	if !cancelled {
		err = c.Connection.Write(ctx, m)
	}
	if tracked {
		c.s.pending.Add(-1)
	}
	select {
	case c.s.answered <- struct{}{}:
	default:
	}
	return err
}

// cancelledID is the requestId of notifications/cancelled.
func cancelledID(params json.RawMessage) (jsonrpc.ID, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	return id, err == nil
}

func (c *sseConn) Close() error {
	err := c.Connection.Close()
	c.s.closeOnce.Do(func() { close(c.s.done) })
	return err
}

// has reports whether id is the ID of an SSE session.
func (s *sseHandler) has(id string) bool {
	if id == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id] != nil
}

// serveStream serves GET /sse.
func (s *sseHandler) serveStream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		http.Error(w, "method not allowed: open the SSE stream with GET /sse, then POST messages to the endpoint its first event names", http.StatusMethodNotAllowed)
		return
	}
	if s.h.shutting.Load() {
		http.Error(w, "toolhost is shutting down; connect again", http.StatusServiceUnavailable)
		return
	}
	if s.h.atSessionLimit() {
		s.h.logger.Warn("a new SSE session was refused: the server has as many as --max-sessions allows", "max_sessions", s.h.opts.MaxSessions)
		w.Header().Set("Retry-After", "30")
		http.Error(w, fmt.Sprintf("the server has %d sessions open, as many as it takes (its operator sets the number with --max-sessions); try again later", s.h.opts.MaxSessions), http.StatusServiceUnavailable)
		return
	}
	id := rand.Text()
	sw := &sseWriter{w: w, rc: http.NewResponseController(w)}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	sess := &sseSession{
		id: id,
		transport: &mcp.SSEServerTransport{
			Endpoint:            "/messages?session_id=" + id,
			Response:            sw,
			MaxRequestBodyBytes: s.h.opts.MaxBodyBytes,
		},
		done:     make(chan struct{}),
		answered: make(chan struct{}, 1),
		calls:    map[jsonrpc.ID]bool{},
		logger:   s.h.logger,
	}
	s.mu.Lock()
	s.sessions[id] = sess
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.sessions, id)
		s.mu.Unlock()
	}()
	ss, err := s.h.srv.MCP().Connect(r.Context(), sess, nil)
	if err != nil {
		s.h.logger.Error("cannot start an SSE session", "error", err)
		http.Error(w, "cannot start the session", http.StatusInternalServerError)
		return
	}
	defer ss.Close()
	var tick <-chan time.Time
	if s.h.opts.SSEKeepAlive > 0 {
		t := time.NewTicker(s.h.opts.SSEKeepAlive)
		defer t.Stop()
		tick = t.C
	}
	// A shutdown ends the stream a moment after it carried every answer.
	shutdown := s.h.streamsCtx.Done()
	var linger <-chan time.Time
	for {
		select {
		case <-r.Context().Done():
			return
		case <-sess.done:
			return
		case <-tick:
			if sw.comment("keepalive") != nil {
				return
			}
		case <-shutdown:
			shutdown = nil
			if sess.pending.Load() <= 0 {
				linger = time.After(sseLinger)
			}
		case <-sess.answered:
			if shutdown == nil && linger == nil && sess.pending.Load() <= 0 {
				linger = time.After(sseLinger)
			}
		case <-linger:
			return
		}
	}
}

// serveMessage serves POST /messages?session_id=ID (also /messages/, and
// the query names sessionid and sessionId): the message goes to the
// session, 202 Accepted, and its reply arrives on the session's stream.
func (s *sseHandler) serveMessage(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed: POST JSON-RPC messages here; open the stream with GET /sse", http.StatusMethodNotAllowed)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "unsupported media type: send the message with Content-Type: application/json", http.StatusUnsupportedMediaType)
		return
	}
	q := r.URL.Query()
	id := q.Get("session_id")
	if id == "" {
		id = q.Get("sessionid")
	}
	if id == "" {
		id = q.Get("sessionId")
	}
	if id == "" {
		http.Error(w, "missing session_id: POST to the endpoint that the GET /sse stream announced in its first event, as in /messages?session_id=ID", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	sess := s.sessions[id]
	s.mu.Unlock()
	if sess == nil {
		http.Error(w, "session not found: it ended or never existed; open a new one with GET /sse", http.StatusNotFound)
		return
	}
	if body, ok := r.Body.(*readBody); ok {
		// The SDK says only "failed to parse body".
		if _, err := jsonrpc.DecodeMessage(body.data); err != nil {
			what := "the body is not a JSON-RPC 2.0 message"
			switch b := bytes.TrimLeft(body.data, " \t\r\n"); {
			case !json.Valid(b):
				what = "the body is not valid JSON"
			case b[0] == '[':
				what = "the body is a batch, and batches are not supported"
			}
			refuse(w, r, http.StatusBadRequest, "not a JSON-RPC message",
				what+`: send one JSON-RPC 2.0 message per POST, as in {"jsonrpc":"2.0","id":1,"method":"ping"}`)
			return
		}
	}
	sess.transport.ServeHTTP(w, r)
}

// sseWriter serializes writes to an SSE stream, so that keep-alive comments
// go between events and never inside one (the SDK writes each event with
// one Write).
type sseWriter struct {
	mu sync.Mutex
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (s *sseWriter) Header() http.Header { return s.w.Header() }

func (s *sseWriter) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.WriteHeader(code)
}

func (s *sseWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *sseWriter) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.rc.Flush()
}

// comment writes an SSE comment line, which clients ignore.
func (s *sseWriter) comment(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := io.WriteString(s.w, ": "+text+"\n\n"); err != nil {
		return err
	}
	return s.rc.Flush()
}
