package host

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/neterr"
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
	// DefaultMaxSessions is the default cap on sessions open at once: each
	// holds memory while idle, and the cap bounds what they hold together.
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
	// Metrics, when not nil, is served at /metrics behind the same checks
	// as the MCP endpoints (Host, Origin, AuthToken): the metrics name the
	// tools.
	Metrics http.Handler
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
// the legacy SSE transport at /sse and /messages, each group of the config
// at /mcp/NAME and /sse/NAME (http_scopes.go), and health endpoints at
// /healthz and /readyz. Every MCP endpoint checks Host and Origin
// (DNS-rebinding protection), the bearer token when one is set, and the
// size of the body.
type HTTPServer struct {
	srv    *Server
	opts   HTTPOptions
	logger *slog.Logger

	policy    atomic.Pointer[originPolicy]
	tokenHash [sha256.Size]byte
	// oauth is the verifier of the config's auth block (http_auth.go).
	oauth oauthState
	// ended holds the IDs of the sessions an auth change closes, from the
	// moment it does (refuseEnded): their closing runs on its own.
	ended sync.Map

	streamable *mcp.StreamableHTTPHandler
	// sessionless serves, beside the sessions of a server that keeps them,
	// the POSTs of the sessionless 2026-07-28 protocol and server/discover
	// (see sessionlessPOST): oneShot, then a stateless SDK handler on the
	// same server. nil when Stateless, where streamable serves them all.
	sessionless http.Handler
	sse         *sseHandler
	handler     http.Handler

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
	// direct holds the sessions whose plain calls the direct path serves,
	// top the receiving middleware it runs them through, and directOff
	// turns it off, for tests (http_direct.go); events is the event store
	// of the sessions.
	direct    directSessions
	events    mcp.EventStore
	top       atomic.Pointer[mcp.MethodHandler]
	directOff atomic.Bool
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
	srv.remote.Store(true)
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
	srv.applyMu.Lock()
	srv.authApplied = h.endSessionsOnAuthChange
	srv.applyMu.Unlock()
	srv.SetTaskRunLimit(opts.RequestTimeout)

	getServer := func(*http.Request) *mcp.Server { return srv.MCP() }
	var events mcp.EventStore
	if !opts.Stateless {
		// A client whose stream broke resumes it with Last-Event-ID, from
		// this replica's memory (bounded, oldest events dropped first).
		// The answers to cancelled calls are not kept for it.
		store := &cancelAwareStore{EventStore: mcp.NewMemoryEventStore(nil), calls: h.calls, onClose: func(sid string) {
			h.direct.forget(sid)
			if h.idle != nil {
				h.idle.forget(sid)
			}
		}}
		store.streams = newSessionStreams(store.EventStore, 2*opts.deadPeerTimeout())
		h.streams = store.streams
		events = store
		h.events = store
		srv.MCP().AddReceivingMiddleware(h.directMiddleware)
		srv.MCP().AddSendingMiddleware(h.divertNotifications)
	}
	h.streamable = mcp.NewStreamableHTTPHandler(getServer, h.sdkOptions(opts.Stateless, events))
	if !opts.Stateless {
		// oneShot takes the 2026-07-28 requests it can serve (the others
		// that come here go on to the SDK's handler, as in --stateless).
		h.sessionless = h.tasksPOST(h.keepStreamsAlive(h.oneShot(mcp.NewStreamableHTTPHandler(getServer, h.sdkOptions(true, nil)))))
	}
	h.sse = &sseHandler{h: h, sessions: map[string]*sseSession{}}

	mux := http.NewServeMux()
	var streamable http.Handler = h.streamable
	if h.streams != nil {
		streamable = h.streams.resume(h.directPOST(streamable)) // http_direct.go
	}
	if opts.Stateless {
		streamable = h.oneShot(streamable) // http_oneshot.go
	}
	sessions := h.streamablePOST(h.tasksPOST(h.keepStreamsAlive(streamable)))
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
	h.route(mux, h.explainSDKErrors(h.refuseEnded(h.endOnShutdown(sessions)))) // the MCP paths, groups' too (http_scopes.go)
	mux.HandleFunc(prmPath, h.servePRM)
	mux.HandleFunc(prmPath+"/", h.servePRM)
	mux.HandleFunc("/healthz", h.serveHealth)
	mux.HandleFunc("/readyz", h.serveReady)
	if opts.Metrics != nil {
		mux.Handle("/metrics", h.serveMetrics(opts.Metrics))
	}
	mux.HandleFunc("/", serveNotFound)
	h.handler = h.accessLog(mux)
	return h, nil
}

// sdkOptions are the options of the SDK's streamable HTTP handlers: the
// handler of sessions (with events, the store a broken stream resumes
// from) or a stateless one.
func (h *HTTPServer) sdkOptions(stateless bool, events mcp.EventStore) *mcp.StreamableHTTPOptions {
	return &mcp.StreamableHTTPOptions{
		Stateless:           stateless,
		EventStore:          events,
		Logger:              sdkLogger(h.logger),
		MaxRequestBodyBytes: h.opts.MaxBodyBytes,
		// Idle sessions are closed by h.idle, which counts a GET stream
		// that waits for notifications as activity; the SDK's timer does
		// not.
		// Host and Origin are checked by guard, against a list the
		// operator can extend; the SDK's fixed loopback check would refuse
		// a proxy's Host even when the operator allowed it.
		DisableLocalhostProtection: true,
		// A 2026-07-28 request whose client went away is cancelled.
		PropagateRequestCancellation: true,
	}
}

// listenError says why the server cannot listen on addr, and what to do:
// another port when this one is taken or not allowed, another address when
// the host is not one of this machine's or cannot be resolved.
func listenError(addr string, err error) error {
	fix := "check the address given to --listen"
	var dnsErr *net.DNSError
	switch {
	case neterr.AddrInUse(err):
		fix = "choose another port with --listen, or stop what is using it"
	case errors.Is(err, syscall.EACCES):
		fix = "choose a port above 1023 with --listen (ports below need privileges)"
	case neterr.AddrNotAvail(err):
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
	oauth := h.verifier() != nil // says so in the log, before it serves
	h.logger.Info("serving over HTTP", "addr", ln.Addr().String(), "mcp", base+"/mcp", "sse", base+"/sse",
		"stateless", h.opts.Stateless, "auth", h.opts.AuthToken != "" || oauth, "allowed_hosts", strings.Join(h.policy.Load().hostList(), ","))
	if h.opts.AuthToken == "" && !oauth && !isLoopbackHost(ln.Addr().String()) {
		h.logger.Warn("listening on a non-loopback address without --auth-token-env: anyone who can reach this port can call the tools", "addr", ln.Addr().String())
	}
	if wildcard && !h.policy.Load().anyHost && len(h.opts.AllowedHosts) == 0 {
		h.logger.Warn("listening on every interface, but requests are accepted only with the Host localhost, 127.0.0.1 or [::1] (a guard against DNS rebinding): "+
			"to serve other machines, give the names and addresses they reach this one by with --allowed-hosts, as in --allowed-hosts mcp.example.com,192.0.2.10",
			"addr", ln.Addr().String())
	}
	defer holdBallastWhen(h.srv.ballastAt.busy)() // see gcHeapFloor
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
	h.logger.Info("shutting down", "calls_in_flight", h.inflight.Load(), "timeout", timeout)
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
				"calls_in_flight", h.inflight.Load(), "timeout", timeout)
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
