package host

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/audit"
	ident "github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/tasks"
)

// Server serves a Registry to MCP clients through the official Go SDK. The
// registry in service can be replaced with Apply while clients are
// connected.
type Server struct {
	mcp     *mcp.Server
	logger  *slog.Logger
	observe *observer // Observe's, or nil
	// remote is set once an HTTPServer serves the server (clientText).
	remote atomic.Bool
	// ballastAt counts the requests received, over any transport, for
	// the GC ballast (a stdio session's in Run, an HTTP server's in its
	// Serve).
	ballastAt *busySignal

	current atomic.Pointer[Registry]
	applyMu sync.Mutex
	// notedFn is s.notedLevel, made once: a method value made at each call
	// (a sessionPeer's noted) is an allocation.
	notedFn func(*mcp.ServerSession) (mcp.LoggingLevel, bool)
	// standIns holds the names of the tools the SDK holds a stand-in for
	// (server_declared.go); under applyMu.
	standIns map[string]bool
	// authApplied, when set, is told of every Apply after the first, under
	// applyMu (the HTTP server ends sessions a new auth block does not
	// cover: http_auth.go).
	authApplied func(old, reg *Registry)
	// resWatch watches the files of the registry in service while a
	// Reloader watches (see resourceWatch); nil otherwise. Under applyMu.
	resWatch *resourceWatch

	// beforeWork is the BeforeWork option's function, or nil.
	beforeWork func()

	// startInfo is the server's identity the SDK was given at the start;
	// renamed is the one in service when a reload changed it, nil while
	// it is the same (see describe).
	startInfo mcp.Implementation
	renamed   atomic.Pointer[mcp.Implementation]

	// life ends with Shutdown; every call's context ends with it, and its
	// cause says why.
	life     context.Context
	shutdown context.CancelCauseFunc

	// subs holds the resource URIs each session subscribed to, and
	// subscribed counts the sessions subscribed to each URI, so that a
	// reload that changes a resource template can tell the subscribers of
	// the URIs it serves (the SDK keeps its own lists, by session, and
	// sends only to them); nsubs is the sum of subscribed's counts, and
	// subsBytes the sum of the lengths of the URIs they count. They are
	// capped by maxSessionSubscriptions, maxSubscriptions and
	// maxSubscriptionBytes, and a session's are dropped when it ends
	// (endSubscriptions).
	subsMu     sync.Mutex
	subs       map[*mcp.ServerSession]map[string]struct{}
	subscribed map[string]int
	nsubs      int
	subsBytes  int

	// listens counts the subscriptions/listen streams open in each session,
	// at most maxSessionListens; a session without one has no entry.
	listensMu sync.Mutex
	listens   map[*mcp.ServerSession]int

	// sdkHandler is the SDK's handling of requests, beneath receive: the
	// subscriptions of a session that ended are dropped from the SDK's
	// lists through it.
	sdkHandler mcp.MethodHandler
	// received is receive's handler over sdkHandler: the stdio
	// connection's direct path runs calls through it (stdio_fast.go).
	received mcp.MethodHandler

	// levels holds the logging level each session set with
	// logging/setLevel (DefaultLogLevel from initialize on), so that an
	// all-clear reaches every client that heard the error it clears (see
	// NotifyCleared). Keys are weak pointers to the sessions; an entry is
	// deleted once its session is garbage.
	levels sync.Map // weak.Pointer[mcp.ServerSession] -> mcp.LoggingLevel

	// notice is the error every client hears once (SetNotice).
	notice notice

	// states signs and checks the requestStates of 2026-07-28 approvals
	// (see mrtr.go).
	states *stateSigner
	// tasks runs the calls of tools with task support as tasks.
	tasks *taskHost
	// audit is where calls of tools not marked read-only are recorded.
	audit *audit.Log
	// group is the group serve --group serves alone, or "" (scopes.go).
	group string
}

// Limits on resources/subscribe and subscriptions/listen, so that clients
// cannot fill the server's memory with subscriptions: each is refused with
// an error that says which limit it met.
const (
	// maxResourceURI is the longest resource URI, in bytes, toolhost takes
	// in a request (resources/read, resources/subscribe,
	// resources/unsubscribe, completion/complete): twice the longest name
	// a resource template's directory serves, room for its escapes.
	maxResourceURI = 8 << 10
	// maxSessionSubscriptions is the most resource URIs one session may be
	// subscribed to at once.
	maxSessionSubscriptions = 1000
	// maxSubscriptions is the most subscriptions all sessions together may
	// hold at once.
	maxSubscriptions = 10000
	// maxSubscriptionBytes is the most bytes the URIs of all sessions'
	// subscriptions may add up to, a URI counted once for each session
	// subscribed to it: room for maxSubscriptions URIs of a length well
	// under maxResourceURI on average.
	maxSubscriptionBytes = 8 << 20
	// maxListenURIs is the most resource URIs one subscriptions/listen
	// request may list, duplicates included: what one session may hold.
	maxListenURIs = maxSessionSubscriptions
	// maxListenURIBytes is the most bytes the resource URIs of one
	// subscriptions/listen request may add up to, duplicates included:
	// the stream holds them for as long as it is open.
	maxListenURIBytes = 64 << 10
	// maxListenBody is the largest subscriptions/listen request toolhost
	// takes over HTTP, in bytes: its URIs and room for the rest. The
	// stream holds its body for as long as it is open.
	maxListenBody = maxListenURIBytes + 16<<10
	// maxSessionListens is the most subscriptions/listen streams one
	// session may have open at once. Over HTTP with --stateless each
	// stream is a session of its own; over stdio one session may open
	// several, each holding its request while open.
	maxSessionListens = 8
)

// NewServer makes a server for reg. The server's name, version and
// instructions come from the config's server block.
func NewServer(reg *Registry, logger *slog.Logger, opts ...ServerOption) *Server {
	if logger == nil {
		logger = slog.Default()
	}
	o := serverOptions{listChanged: true}
	for _, opt := range opts {
		opt(&o)
	}
	info := reg.Config.Server
	s := &Server{logger: logger, beforeWork: o.beforeWork, startInfo: identity(reg), states: newStateSigner(o.stateKey, o.stateGuard, logger), group: o.group}
	s.life, s.shutdown = context.WithCancelCause(context.Background())
	s.notedFn = s.notedLevel
	s.ballastAt = newBusySignal()
	s.tasks = newTaskHost(s, o.tasks)
	s.audit = o.audit
	impl := s.startInfo
	s.mcp = mcp.NewServer(&impl, &mcp.ServerOptions{
		Instructions: info.Instructions,
		Logger:       sdkLogger(logger),
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: o.listChanged},
			Resources:   &mcp.ResourceCapabilities{ListChanged: o.listChanged, Subscribe: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: o.listChanged},
			Logging:     &mcp.LoggingCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
			Extensions:  map[string]any{tasks.ExtensionID: map[string]any{}},
		},
		CompletionHandler:  s.completionHandler,
		SubscribeHandler:   s.subscribeHandler,
		UnsubscribeHandler: s.unsubscribeHandler,
	})
	// One middleware, not one per concern: each adds frames to the
	// goroutine of every request, and a tools/call whose stack grows past
	// its second size pays for one more growth and copy of it
	// (BENCHMARKS.md).
	s.logTraffic() // at debug only, and first, to see what receive refuses
	s.mcp.AddReceivingMiddleware(s.receive)
	if s.observe = o.observe; o.observe != nil {
		s.mcp.AddReceivingMiddleware(o.observe.middleware(s))
	}
	s.Apply(reg)
	if reg.Placeholder() {
		s.SetNotice(failedNotice(true, thcl.FormatDiagnostics(reg.placeholder.diags)))
	}
	return s
}

// DefaultLogLevel is the level of logging notifications a client receives
// until it sets its own with logging/setLevel. The spec leaves the choice to
// the server; warning lets a client see a broken reload without asking.
const DefaultLogLevel mcp.LoggingLevel = "warning"

// receive is toolhost's middleware for the requests it receives: it answers
// the requests whose mistakes the SDK would answer without saying how to
// fix them (checkRequest), and it sets DefaultLogLevel on a session as soon
// as initialize succeeds, so that the logs sent before
// notifications/initialized (the spec allows them) are filtered like all
// later ones rather than dropped.
func (s *Server) receive(next mcp.MethodHandler) mcp.MethodHandler {
	s.sdkHandler = next
	s.received = func(ctx context.Context, method string, req mcp.Request) (_ mcp.Result, err error) {
		defer s.recoverRequest(method, &err)
		if !strings.HasPrefix(method, "notifications/") {
			s.ballastAt.count()
		}
		if method == "tools/call" {
			noteStdioMeta(req) // stdio_fast.go: the SDK took its _meta
		}
		if ex := req.GetExtra(); ex != nil {
			// The verified token's caller, for lists, scopes and claim().
			ctx = ident.NewContext(ctx, ident.FromTokenInfo(ex.TokenInfo))
		}
		v := s.viewOf(ctx, req) // scopes and groups (scopes.go)
		if err := s.checkRequest(method, req, v); err != nil {
			return nil, err
		}
		if err := v.authorize(s.current.Load(), method, req); err != nil {
			return nil, err
		}
		s.tellNotice(ctx, method, req)
		if method == "subscriptions/listen" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
				if err := s.openListen(ss); err != nil {
					return nil, err
				}
				defer s.closeListen(ss)
			}
		}
		if s.beforeWork != nil && method != "initialize" {
			s.beforeWork()
		}
		if method == "tools/call" {
			ctx = withSession(ctx, req.GetSession())
			if res, err, ok := s.callAsTask(ctx, req); ok {
				return res, err
			}
		}
		res, err := next(ctx, method, req)
		if err != nil && method == "initialize" {
			// The SDK refuses a second initialize with an error without a
			// JSON-RPC code, which streamable HTTP would send as code 0
			// (stdio and legacy SSE fix the codes as they write). Only
			// here: other plain errors may be the SDK's "not handled",
			// which it turns into "method not found" itself.
			err = standardError(err)
		}
		if method == "initialize" && s.beforeWork != nil {
			go s.beforeWork()
		}
		if err == nil {
			s.describe(method, req, res)
			cur := s.current.Load()
			if method == "tools/list" {
				res = cur.declaredTools(res) // server_declared.go
			}
			res = v.filterList(cur, method, res)
			res = v.privateCache(cur, res) // scopes_cache.go
			if method == "tools/list" {
				// Last: the filters above read a *mcp.ListToolsResult, and
				// would pass the list with task support unfiltered.
				res = cur.withTaskSupport(res)
			}
		}
		if method == "initialize" && err == nil {
			noteStdioSession(req) // stdio_fast.go
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				if _, err := next(ctx, "logging/setLevel", &mcp.ServerRequest[*mcp.SetLoggingLevelParams]{
					Session: ss,
					Params:  &mcp.SetLoggingLevelParams{Level: DefaultLogLevel},
				}); err == nil {
					s.noteLevel(ss, DefaultLogLevel)
				}
			}
		}
		if method == "logging/setLevel" && err == nil {
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil {
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
					s.noteLevel(ss, p.Level)
				}
			}
		}
		return res, err
	}
	return s.received
}

// describe puts the server block in service into what the SDK fills in
// from what NewServer was given at the start, since a reload may have
// changed the name, title, version or instructions: the initialize and
// server/discover answers, and, for clients of the 2026-07-28 protocol,
// the server's identity in each result's _meta (the SDK adds it only when
// it is not there). Clients already connected keep what their initialize
// told them.
func (s *Server) describe(method string, req mcp.Request, res mcp.Result) {
	switch method {
	case "initialize", "server/discover":
		reg := s.current.Load()
		if reg == nil || reg.Config == nil || reg.Config.Server == nil {
			return
		}
		instructions := reg.Config.Server.Instructions
		switch r := res.(type) {
		case *mcp.InitializeResult:
			if r != nil {
				impl := identity(reg)
				r.ServerInfo = &impl
				r.Instructions = instructions
			}
		case *mcp.DiscoverResult:
			if r != nil {
				r.Instructions = instructions
				s.annotate(r)
			}
		}
	default:
		if s.renamed.Load() != nil && requestOfNewProtocol(req) {
			s.annotate(res)
		}
	}
}

// annotate sets the server's identity in a result's _meta, when a reload
// renamed the server.
func (s *Server) annotate(res mcp.Result) {
	if impl := s.renamed.Load(); impl != nil {
		setServerInfo(res, impl, true)
	}
}

// annotateStarted sets in a result's _meta, unless it has one already, the
// identity the server started with, as the SDK does for each answer to a
// request of the 2026-07-28 protocol that it dispatches (a call on stdio's
// direct path is not one of those).
func (s *Server) annotateStarted(res mcp.Result) {
	impl := s.startInfo
	setServerInfo(res, &impl, false)
}

// setServerInfo sets impl as the server's identity in res's _meta, in
// place of one there only when replace is set. A nil res is left alone.
func setServerInfo(res mcp.Result, impl *mcp.Implementation, replace bool) {
	if res == nil {
		return
	}
	if v := reflect.ValueOf(res); v.Kind() == reflect.Pointer && v.IsNil() {
		return
	}
	m := res.GetMeta()
	if _, ok := m[mcp.MetaKeyServerInfo]; ok && !replace {
		return
	}
	if m == nil {
		m = map[string]any{}
	}
	m[mcp.MetaKeyServerInfo] = impl
	res.SetMeta(m)
}

// requestOfNewProtocol reports whether a request is of the 2026-07-28 protocol,
// whose results carry the server's identity in _meta.
func requestOfNewProtocol(req mcp.Request) bool {
	p := req.GetParams()
	if p == nil {
		return false
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return false
	}
	v, _ := p.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
	return v >= "2026-07-28"
}

// identity is the server's identity as a registry's server block gives it.
func identity(reg *Registry) mcp.Implementation {
	if reg == nil || reg.Config == nil || reg.Config.Server == nil {
		return mcp.Implementation{}
	}
	info := reg.Config.Server
	return mcp.Implementation{Name: info.Name, Title: info.Title, Version: info.Version}
}

// Notify sends a logging notification to every connected client (each
// filters it by the level it asked for).
func (s *Server) Notify(ctx context.Context, level mcp.LoggingLevel, msg string) {
	msg = s.clientText(msg)
	for ss := range s.mcp.Sessions() {
		_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "toolhost", Data: msg})
	}
}

// NotifyCleared sends every session a message that clears an error sent
// with Notify at level error: at warning, or at the session's own logging
// level if that is higher, so that a client that set its level to error,
// and so saw the error, sees it cleared too. A session whose level is above
// error never saw the error and is not told.
func (s *Server) NotifyCleared(ctx context.Context, msg string) {
	const base, errorLevel = mcp.LoggingLevel("warning"), mcp.LoggingLevel("error")
	msg = s.clientText(msg)
	for ss := range s.mcp.Sessions() {
		level := base
		if v, ok := s.levels.Load(weak.Make(ss)); ok && levelRank(v.(mcp.LoggingLevel)) > levelRank(level) {
			level = v.(mcp.LoggingLevel)
		}
		if levelRank(level) > levelRank(errorLevel) {
			continue
		}
		_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "toolhost", Data: msg})
	}
}

// noteLevel records the logging level a session set (see levels).
func (s *Server) noteLevel(ss *mcp.ServerSession, level mcp.LoggingLevel) {
	key := weak.Make(ss)
	if _, loaded := s.levels.Swap(key, level); !loaded {
		runtime.AddCleanup(ss, func(k weak.Pointer[mcp.ServerSession]) { s.levels.Delete(k) }, key)
	}
}

// levelRank orders logging levels, lowest first; -1 for one unknown.
func levelRank(l mcp.LoggingLevel) int { return slices.Index(logLevels, l) }

// MCP returns the SDK server, for transports.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Registry returns the registry in service.
func (s *Server) Registry() *Registry { return s.current.Load() }

// Shutdown cancels every call that is running and every call to come:
// commands are stopped with their process groups and reaped, HTTP requests
// aborted. A host calls it when it is about to exit, so that nothing it
// started outlives it; the calls answer with their cancellation errors at
// once, without waiting for their commands to exit within their
// kill_timeout (adapters.ErrHostExiting): the host then gives the
// commands the time it gives them (adapters.WaitCommands) and kills what
// is left (adapters.KillCommands).
func (s *Server) Shutdown() { s.ShutdownBecause(ErrShuttingDown) }

// ShutdownBecause is Shutdown with the reason the cancelled calls give in
// their error results (the first reason given is kept).
func (s *Server) ShutdownBecause(reason error) { s.shutdown(adapters.HostExiting(reason)) }

// ErrShuttingDown is the reason given by calls that Shutdown cancelled.
var ErrShuttingDown = errors.New("toolhost is shutting down")

// callContext returns a context for one call that ends with ctx or with
// Shutdown, whichever comes first; after Shutdown, context.Cause gives its
// reason. A ctx that ends with Shutdown already (lifeBound) is taken as
// it is, and its caller ends it.
func (s *Server) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.endsWithLife(ctx) {
		// A call of the stdio direct path: its context ends with ctx's
		// (callctx.go).
		return withAudit(ctx, s.audit), func() {}
	}
	ctx, cancel := context.WithCancelCause(withAudit(ctx, s.audit))
	if s.life.Err() != nil {
		// A call that begins after Shutdown (a request read as the stop
		// signal came) is ended before anything runs: AfterFunc would end
		// it on a goroutine of its own, by when a command may have started.
		cancel(context.Cause(s.life))
		return ctx, func() { cancel(context.Canceled) }
	}
	stop := context.AfterFunc(s.life, func() { cancel(context.Cause(s.life)) })
	return ctx, func() { stop(); cancel(context.Canceled) }
}

// use returns the registry in service, marked as in use until release is
// called, so that a reload cannot close it under a running call.
func (s *Server) use() *Registry {
	for {
		reg := s.current.Load()
		if reg.acquire() {
			return reg
		}
	}
}

// CallTool runs a tool of the registry in service, which stays open until
// the call returns even if a reload retires it meanwhile. Front ends other
// than MCP (the framed bridge, toolhost call) use it.
func (s *Server) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if s.observe != nil {
		return s.observe.callTool(ctx, s, name, args)
	}
	return s.callTool(ctx, name, args)
}

// callTool is CallTool, unobserved. A panic in the call is the call's
// internal error, as for a call over MCP (recoverRequest): the bridge and
// the call command run calls outside the SDK's handling.
func (s *Server) callTool(ctx context.Context, name string, args json.RawMessage) (_ *mcp.CallToolResult, err error) {
	defer s.recoverRequest("tools/call", &err)
	reg := s.use()
	defer reg.release()
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	return reg.CallTool(ctx, name, args)
}

func (s *Server) toolHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	reg := s.use()
	defer reg.release()
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	var peer Peer
	if req.Session != nil {
		peer = &sessionPeer{ss: req.Session, token: req.Params.GetProgressToken(), noted: s.notedFn, ownLevel: hasOwnLevel(req.Params.Meta)}
	}
	ctx, m := s.withMRTR(ctx, req)
	res, err := reg.CallToolFrom(ctx, req.Params.Name, req.Params.Arguments, peer)
	if errors.Is(err, ErrUnknownTool) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if m != nil && m.err != nil {
		return nil, m.err
	}
	if req.Session != nil {
		if init := req.Session.InitializeParams(); init != nil {
			forProtocol(res, init.ProtocolVersion)
		}
	}
	return res, err
}

func (s *Server) completionHandler(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	reg := s.use()
	defer reg.release()
	return reg.complete(s.viewOf(ctx, req), req.Params.Ref, req.Params.Argument.Name, req.Params.Argument.Value)
}

func (s *Server) resourceHandler(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	reg := s.use()
	defer reg.release()
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	res, err := reg.ReadResource(ctx, req.Params.URI)
	var rpcErr *jsonrpc.Error
	if err != nil && !errors.As(err, &rpcErr) {
		// A file or backend that failed: an internal error with the reason,
		// not the code 0 the SDK gives plain errors.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return res, err
}

func (s *Server) promptHandler(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	reg := s.use()
	defer reg.release()
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	res, err := reg.GetPrompt(ctx, req.Params.Name, req.Params.Arguments)
	var pe *PromptError
	if errors.As(err, &pe) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: pe.Msg}
	}
	return res, err
}

// Run serves one client over t until the client goes away or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	// The ballast (see gcHeapFloor) is made once the server has answered
	// ballastAfterRequests requests: a session that sees few needs none,
	// and its collection stays off the path of the first answers.
	defer holdBallastWhen(s.ballastAt.busy)()
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// ServerInfo returns the server block in service, for inspect.
func (s *Server) ServerInfo() *thcl.Server { return s.current.Load().Config.Server }

// sdkLogger quiets the SDK's per-session chatter: it logs at warn and above
// unless toolhost runs at debug. Its messages that speak of the SDK's own
// API are put in toolhost's terms (see sdkWording).
func sdkLogger(l *slog.Logger) *slog.Logger {
	h := l.Handler()
	if !l.Enabled(context.Background(), slog.LevelDebug) {
		h = minLevel{h, slog.LevelWarn}
	}
	return slog.New(sdkWording{h}).With("component", "mcp")
}

// minLevel is a slog.Handler that drops records below a level.
type minLevel struct {
	slog.Handler
	level slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.level}
}

func (h minLevel) WithGroup(n string) slog.Handler {
	return minLevel{h.Handler.WithGroup(n), h.level}
}
