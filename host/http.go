package host

import (
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// DefaultSSEKeepAlive is how often an idle SSE stream gets a comment
	// line, so that proxies and load balancers do not close it as idle.
	DefaultSSEKeepAlive = 25 * time.Second
)

// Timeouts of the HTTP layer itself.
const (
	// readHeaderTimeout bounds the reading of a request's headers.
	readHeaderTimeout = 10 * time.Second
	// bodyReadTimeout bounds the reading of a request's body.
	bodyReadTimeout = 30 * time.Second
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
	// RequestTimeout bounds each MCP request; DefaultRequestTimeout when 0,
	// no bound when negative.
	RequestTimeout time.Duration
	// ShutdownTimeout bounds a graceful shutdown; DefaultShutdownTimeout
	// when 0.
	ShutdownTimeout time.Duration
	// SessionIdleTimeout closes a streamable HTTP session that has had no
	// request for this long; 0 keeps sessions until the client ends them.
	SessionIdleTimeout time.Duration
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
	// endStreams, called when a shutdown starts, ends the streams that only
	// wait for server messages: streamable HTTP's standalone GET and
	// subscriptions/listen (SSE streams end once their calls are answered).
	streamsCtx context.Context
	endStreams context.CancelFunc
	// stopCalls cancels the context of every request still running when a
	// shutdown runs past its deadline.
	stopCtx   context.Context
	stopCalls context.CancelFunc
	shutting  atomic.Bool
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
	host, port, err := net.SplitHostPort(s)
	if err != nil {
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
	h.stopCtx, h.stopCalls = context.WithCancel(context.Background())
	h.streamsCtx, h.endStreams = context.WithCancel(context.Background())
	srv.MCP().AddReceivingMiddleware(h.callMiddleware)

	getServer := func(*http.Request) *mcp.Server { return srv.MCP() }
	var events mcp.EventStore
	if !opts.Stateless {
		// A client whose stream broke resumes it with Last-Event-ID, from
		// this replica's memory (bounded, oldest events dropped first).
		events = mcp.NewMemoryEventStore(nil)
	}
	h.streamable = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:           opts.Stateless,
		EventStore:          events,
		Logger:              sdkLogger(h.logger),
		MaxRequestBodyBytes: opts.MaxBodyBytes,
		SessionTimeout:      opts.SessionIdleTimeout,
		// Host and Origin are checked by guard, against a list the
		// operator can extend; the SDK's fixed loopback check would refuse
		// a proxy's Host even when the operator allowed it.
		DisableLocalhostProtection: true,
		// A 2026-07-28 request whose client went away is cancelled.
		PropagateRequestCancellation: true,
	})
	h.sse = &sseHandler{h: h, sessions: map[string]*sseSession{}}

	mux := http.NewServeMux()
	mux.Handle("/mcp", h.guard(h.endOnShutdown(h.streamable)))
	mux.Handle("/sse", h.guard(http.HandlerFunc(h.sse.serveStream)))
	mux.Handle("/messages", h.guard(http.HandlerFunc(h.sse.serveMessage)))
	mux.Handle("/messages/", h.guard(http.HandlerFunc(h.sse.serveMessage)))
	mux.HandleFunc("/healthz", h.serveHealth)
	mux.HandleFunc("/readyz", h.serveReady)
	mux.HandleFunc("/", serveNotFound)
	h.handler = h.accessLog(mux)
	return h, nil
}

// Handler returns the HTTP handler with every route and middleware.
func (h *HTTPServer) Handler() http.Handler { return h.handler }

// ListenAndServe listens on the configured address and serves until ctx
// ends, then shuts down gracefully (see Serve).
func (h *HTTPServer) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", h.opts.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w; choose another port with --listen, or stop what is using it", h.opts.Addr, err)
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
	hs := &http.Server{
		Handler:           h.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          errorLog,
	}
	base := "http://" + ln.Addr().String()
	h.logger.Info("serving over HTTP", "addr", ln.Addr().String(), "mcp", base+"/mcp", "sse", base+"/sse",
		"stateless", h.opts.Stateless, "auth", h.opts.AuthToken != "", "allowed_hosts", strings.Join(h.policy.Load().hostList(), ","))
	if h.opts.AuthToken == "" && !isLoopbackHost(ln.Addr().String()) {
		h.logger.Warn("listening on a non-loopback address without --auth-token-env: anyone who can reach this port can call the tools", "addr", ln.Addr().String())
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	select {
	case err := <-serveErr:
		h.stopCalls()
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
	h.endStreams()
	timeout := h.opts.ShutdownTimeout
	h.logger.Info("shutting down", "calls_in_flight", h.inflight.Load(), "timeout", timeout.String())
	deadline, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	err := hs.Shutdown(deadline)
	if errors.Is(err, context.DeadlineExceeded) {
		h.logger.Warn("shutdown timeout reached: cancelling the calls still running and closing connections",
			"calls_in_flight", h.inflight.Load(), "timeout", timeout.String())
		err = nil
	}
	// Calls whose clients went away may still run, detached from any
	// request; so may calls past the deadline. They are cancelled (their
	// processes killed), and the sessions left are closed.
	h.stopCalls()
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

// callMiddleware applies the request timeout to every MCP request, counts
// the requests in flight and ties them to the shutdown's last resort.
func (h *HTTPServer) callMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(h.stopCtx, cancel)
		defer stop()
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
		res, err := next(ctx, method, req)
		if context.Cause(ctx) == errRequestTimeout {
			msg := fmt.Sprintf("the request ran longer than the server's request timeout (%s) and was stopped; the server's operator can raise it with --request-timeout", h.opts.RequestTimeout)
			if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
			} else if err != nil {
				err = errors.New(msg)
			}
		}
		return res, err
	}
}

// errRequestTimeout is the cause of a request's cancellation by
// RequestTimeout.
var errRequestTimeout = errors.New("request timeout")

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
// no larger than the limit, read within bodyReadTimeout. It answers CORS
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
				refuse(w, r, http.StatusForbidden, "origin not allowed",
					fmt.Sprintf("Forbidden: Origin %q is not allowed. If this web page should reach toolhost, add it with --allowed-origins %s", origin, origin))
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
			if a := r.Header.Get("Authorization"); a != "" {
				w.Header().Set("WWW-Authenticate", `Bearer realm="toolhost", error="invalid_token"`)
				msg = "Unauthorized: the bearer token is not the one toolhost was started with"
				if scheme, _, _ := strings.Cut(a, " "); !strings.EqualFold(scheme, "Bearer") {
					msg = fmt.Sprintf("Unauthorized: toolhost takes a bearer token, not %s credentials: send the header Authorization: Bearer TOKEN", scheme)
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
			r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes)
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(bodyReadTimeout)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
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

// deadlineBody lifts the body's read deadline once the body is read, so
// that a response streamed for long afterwards is not cut by it.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

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
		}
		h, pt, err := net.SplitHostPort(e)
		if err != nil {
			// No port: any port.
			h, pt = strings.Trim(e, "[]"), ""
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
		if pt == "" || pt == port || (port == "" && pt == "80") {
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

// normOrigin lower-cases an origin and drops a trailing slash; it reports
// false for what is not scheme://host[:port].
func normOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(s), "/"))
	if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
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
	// answered is signalled (without blocking) after each answer.
	answered chan struct{}
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

func (c *sseConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
		c.s.pending.Add(1)
	}
	return m, err
}

func (c *sseConn) Write(ctx context.Context, m jsonrpc.Message) error {
	err := c.Connection.Write(ctx, m)
	if _, ok := m.(*jsonrpc.Response); ok {
		c.s.pending.Add(-1)
		select {
		case c.s.answered <- struct{}{}:
		default:
		}
	}
	return err
}

func (c *sseConn) Close() error {
	err := c.Connection.Close()
	c.s.closeOnce.Do(func() { close(c.s.done) })
	return err
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
