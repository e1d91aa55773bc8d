package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/parallel"
)

// Server serves a Registry to MCP clients through the official Go SDK. The
// registry in service can be replaced with Apply while clients are
// connected.
type Server struct {
	mcp    *mcp.Server
	logger *slog.Logger

	current atomic.Pointer[Registry]
	applyMu sync.Mutex

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

	// levels holds the logging level each session set with
	// logging/setLevel (DefaultLogLevel from initialize on), so that an
	// all-clear reaches every client that heard the error it clears (see
	// NotifyCleared). Keys are weak pointers to the sessions; an entry is
	// deleted once its session is garbage.
	levels sync.Map // weak.Pointer[mcp.ServerSession] -> mcp.LoggingLevel
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
	s := &Server{logger: logger, beforeWork: o.beforeWork, startInfo: identity(reg)}
	s.life, s.shutdown = context.WithCancelCause(context.Background())
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
		},
		CompletionHandler:  s.completionHandler,
		SubscribeHandler:   s.subscribeHandler,
		UnsubscribeHandler: s.unsubscribeHandler,
	})
	// One middleware, not one per concern: each adds frames to the
	// goroutine of every request, and a tools/call that runs deeper than
	// 16 KB of stack pays for a second growth and copy of it (BENCHMARKS.md).
	s.mcp.AddReceivingMiddleware(s.receive)
	s.Apply(reg)
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
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if err := s.checkRequest(method, req); err != nil {
			return nil, err
		}
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
		}
		if method == "initialize" && err == nil {
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
}

// openListen counts a subscriptions/listen stream that ss opens, or
// refuses it when ss has maxSessionListens open.
func (s *Server) openListen(ss *mcp.ServerSession) error {
	s.listensMu.Lock()
	defer s.listensMu.Unlock()
	if n := s.listens[ss]; n >= maxSessionListens {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("this session has %d subscriptions/listen streams open, as many as toolhost allows one session; cancel one (notifications/cancelled) before opening another, or ask for all the notifications you want in one stream", n)}
	}
	if s.listens == nil {
		s.listens = map[*mcp.ServerSession]int{}
	}
	s.listens[ss]++
	return nil
}

// closeListen counts a subscriptions/listen stream of ss that ended.
func (s *Server) closeListen(ss *mcp.ServerSession) {
	s.listensMu.Lock()
	defer s.listensMu.Unlock()
	if s.listens[ss]--; s.listens[ss] <= 0 {
		delete(s.listens, ss)
	}
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
	impl := s.renamed.Load()
	if impl == nil || res == nil {
		return
	}
	if v := reflect.ValueOf(res); v.Kind() == reflect.Pointer && v.IsNil() {
		return
	}
	m := res.GetMeta()
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

// Changes says what an Apply changed, by name.
type Changes struct {
	// ToolsAdded, ToolsRemoved and ToolsChanged are what clients see
	// change in tools/list.
	ToolsAdded, ToolsRemoved, ToolsChanged []string
	// ToolsRedefined are the tools that clients see unchanged but whose
	// block in the config changed: they now run differently (a new
	// command, URL, template or result mapping). Clients are not notified,
	// having nothing to fetch again.
	ToolsRedefined []string
	// ResourcesChanged and PromptsChanged say whether what clients list
	// changed; ResourcesRedefined and PromptsRedefined, like
	// ToolsRedefined, name the resources, resource templates and prompts
	// listed as before whose blocks changed (a prompt's messages, the file
	// a resource is read from).
	ResourcesChanged, PromptsChanged     bool
	ResourcesRedefined, PromptsRedefined []string
	// ServerChanged says the server block changed: its network policy
	// and call limits apply to the new registry, and its name, version
	// and instructions to the initialize answers from now on.
	ServerChanged bool
}

// Apply puts reg in service. Definitions that are new or changed are
// (re)registered and removed ones unregistered, so that connected clients get
// one list_changed notification per kind that changed. Calls already running
// finish on the registry they started with; the old registry is returned for
// the caller to retire once they are done.
func (s *Server) Apply(reg *Registry) (old *Registry, ch Changes) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	if prev := s.current.Load(); prev != nil && cap(prev.slots) == cap(reg.slots) {
		// The same max_concurrent_calls: the new registry shares the
		// slots of the one in service, where the calls still running
		// hold theirs, so that a reload does not let as many again start
		// beside them. A new limit takes a new set of slots: calls
		// running under the old one finish as they are.
		reg.slots = prev.slots
	}
	old = s.current.Swap(reg)
	if old != nil {
		if impl := identity(reg); impl.Name != s.startInfo.Name || impl.Title != s.startInfo.Title || impl.Version != s.startInfo.Version {
			s.renamed.Store(&impl)
		} else {
			s.renamed.Store(nil)
		}
	}

	oldTools := map[string]*mcp.Tool{}
	// What the blocks were and are, to find definitions that changed
	// behind a declaration clients see unchanged (none at the first Apply).
	var defs *blockChanges
	if old != nil {
		for _, t := range old.Tools {
			oldTools[t.Name] = t
		}
		defs = newBlockChanges(blockDefs(old.Config), blockDefs(reg.Config))
		// A server block added or removed changes the server too (its
		// defaults take the place of what it said, or the reverse).
		_, had := defs.old[blockKey{kind: "server"}]
		_, has := defs.new[blockKey{kind: "server"}]
		ch.ServerChanged = had != has || defs.redefined(blockKey{kind: "server"})
	}
	newNames := map[string]bool{}
	var add []*mcp.Tool
	for _, t := range reg.Tools {
		newNames[t.Name] = true
		prev, existed := oldTools[t.Name]
		switch {
		case !existed:
			ch.ToolsAdded = append(ch.ToolsAdded, t.Name)
		case !sameTool(prev, t):
			ch.ToolsChanged = append(ch.ToolsChanged, t.Name)
		default:
			// The SDK's registration holds only the declaration: calls
			// find the definition in the registry in service.
			if defs.redefined(blockKey{"tool", t.Name}) {
				ch.ToolsRedefined = append(ch.ToolsRedefined, t.Name)
			}
			continue
		}
		add = append(add, t)
	}
	s.addTools(add, old == nil)
	if len(add) >= releaseAfter {
		// Registration left about 70 KB of garbage a tool (see addTools),
		// on top of the compile's: return it to the OS soon rather than
		// over minutes, so that a large config does not keep the peak of
		// its load as its resident size. Later, and in the background, so
		// that it delays neither the first answer nor the reload.
		time.AfterFunc(releaseDelay, debug.FreeOSMemory)
	}
	for name := range oldTools {
		if !newNames[name] {
			ch.ToolsRemoved = append(ch.ToolsRemoved, name)
		}
	}
	sort.Strings(ch.ToolsRemoved)
	if len(ch.ToolsRemoved) > 0 {
		s.mcp.RemoveTools(ch.ToolsRemoved...)
	}

	var oldRes []*mcp.Resource
	var oldTmpl []*mcp.ResourceTemplate
	var oldPrompts []*mcp.Prompt
	if old != nil {
		oldRes, oldTmpl, oldPrompts = old.Resources, old.Templates, old.Prompts
	}
	if changedJSON(old == nil, oldRes, reg.Resources) || changedJSON(old == nil, oldTmpl, reg.Templates) {
		ch.ResourcesChanged = true
		var uris, tmpls []string
		for _, r := range oldRes {
			uris = append(uris, r.URI)
		}
		for _, t := range oldTmpl {
			tmpls = append(tmpls, t.URITemplate)
		}
		if len(uris) > 0 {
			s.mcp.RemoveResources(uris...)
		}
		if len(tmpls) > 0 {
			s.mcp.RemoveResourceTemplates(tmpls...)
		}
		for _, r := range reg.Resources {
			s.mcp.AddResource(r, s.resourceHandler)
		}
		for _, t := range reg.Templates {
			s.mcp.AddResourceTemplate(t, s.resourceHandler)
		}
	}
	if old != nil {
		// Subscribers of a resource whose declaration or block changed
		// (the file it is read from, say) are told, and so are those of the
		// URIs a changed resource template serves; the SDK sends only to
		// the sessions subscribed to each URI.
		for _, uri := range s.updatedResources(old, reg, defs) {
			_ = s.mcp.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
	if old != nil {
		ch.ResourcesRedefined = redefinedDecls(defs, "resource", oldRes, reg.Resources, func(r *mcp.Resource) string { return r.Name })
		ch.ResourcesRedefined = append(ch.ResourcesRedefined, redefinedDecls(defs, "resource_template", oldTmpl, reg.Templates, func(t *mcp.ResourceTemplate) string { return t.Name })...)
		ch.PromptsRedefined = redefinedDecls(defs, "prompt", oldPrompts, reg.Prompts, func(p *mcp.Prompt) string { return p.Name })
	}
	if changedJSON(old == nil, oldPrompts, reg.Prompts) {
		ch.PromptsChanged = true
		var names []string
		for _, p := range oldPrompts {
			names = append(names, p.Name)
		}
		if len(names) > 0 {
			s.mcp.RemovePrompts(names...)
		}
		for _, p := range reg.Prompts {
			s.mcp.AddPrompt(p, s.promptHandler)
		}
	}
	return old, ch
}

// updatedResources lists the URIs whose content a reload from old to reg
// may have changed: a resource kept under the same URI whose declaration
// or block changed, and the subscribed URIs served by a resource template
// kept under the same name whose block changed (those the template served
// as it was, or serves as it is).
func (s *Server) updatedResources(old, reg *Registry, defs *blockChanges) []string {
	var uris []string
	before := map[string]*mcp.Resource{}
	for _, r := range old.Resources {
		before[r.URI] = r
	}
	// The block comparison covers native syntax only; the file and the
	// directory are compared too, for configs in HCL's JSON syntax.
	for _, r := range reg.Resources {
		if prev, ok := before[r.URI]; ok && (!sameJSON(prev, r) || defs.redefined(blockKey{"resource", r.Name}) || old.resourceSource(r.URI) != reg.resourceSource(r.URI)) {
			uris = append(uris, r.URI)
		}
	}
	oldTmpl := map[string]*templateDir{}
	for _, t := range old.templates {
		oldTmpl[t.decl.Name] = t
	}
	var changed []*templateDir
	for _, t := range reg.templates {
		prev, ok := oldTmpl[t.decl.Name]
		if !ok {
			continue
		}
		if prev.decl.Dir != t.decl.Dir || defs.redefined(blockKey{"resource_template", t.decl.Name}) {
			changed = append(changed, prev, t)
		}
	}
	if len(changed) == 0 {
		return uris
	}
	for _, uri := range s.subscribedURIs() {
		if slices.ContainsFunc(changed, func(t *templateDir) bool { return t.matches(uri) }) && !slices.Contains(uris, uri) {
			uris = append(uris, uri)
		}
	}
	return uris
}

// redefinedDecls names the declarations of a kind of block that clients see
// the same in before and after but whose blocks changed.
func redefinedDecls[T any](defs *blockChanges, kind string, before, after []T, name func(T) string) []string {
	prev := make(map[string]T, len(before))
	for _, d := range before {
		prev[name(d)] = d
	}
	var names []string
	for _, d := range after {
		n := name(d)
		if p, ok := prev[n]; ok && sameJSON(p, d) && defs.redefined(blockKey{kind, n}) {
			names = append(names, n)
		}
	}
	return names
}

// addTools registers tools with the SDK, on every free processor. AddTool
// re-decodes every schema three times through a decoder with a 32 KiB
// buffer: about 35 µs and 73 KB of garbage a tool.
func (s *Server) addTools(tools []*mcp.Tool, first bool) {
	add := s.addTool
	if first {
		add = s.addToolUnlisted
	}
	parallel.For(len(tools), addToolsPerWorker, func(i int) { add(tools[i]) })
}

// stubInput and stubOutput stand in for a tool's schemas while the SDK's
// AddTool looks at them (see addToolUnlisted). The SDK only reads them.
var (
	stubInput  = json.RawMessage(`{"type":"object"}`)
	stubOutput = &jsonschema.Schema{}
)

// headerAnnotation is the schema keyword the SDK checks in AddTool beyond
// the type (x-mcp-header, on properties).
var headerAnnotation = []byte(`"x-mcp-header"`)

// addToolUnlisted registers a tool at the first Apply, before any session
// exists, when nothing can list or call it yet. The SDK's AddTool encodes
// and decodes a schema given as JSON three times to check it: that its
// type is "object", what it would find anyway as a *jsonschema.Schema
// without decoding, and its x-mcp-header annotations. The compiler has
// checked the first, and a schema without the annotation has nothing for
// the second; such a tool is registered with stand-in schemas, then given
// its own back: the SDK keeps the *mcp.Tool it is given and lists that.
// For 1,000 tools this takes registration from 30 to 26 ms and from
// 57,000 to 20,000 allocations (BenchmarkApply); what is left is mostly
// the SDK's decoding of the stand-in, through a new 32 KiB buffer each
// time. TestToolsListedAsDeclared checks that tools/list shows the tools
// as declared. A reload cannot do this: a session could list a tool
// between the two steps.
func (s *Server) addToolUnlisted(t *mcp.Tool) {
	in, ok := t.InputSchema.(json.RawMessage)
	if !ok || bytes.Contains(in, headerAnnotation) {
		s.addTool(t)
		return
	}
	out := t.OutputSchema
	t.InputSchema = stubInput
	if out != nil {
		t.OutputSchema = stubOutput
	}
	s.addTool(t)
	t.InputSchema, t.OutputSchema = in, out
}

// addToolsPerWorker is the fewest tools a goroutine of addTools registers.
// The SDK's AddTool is safe for concurrent use and does most of its work,
// re-encoding and decoding the schemas, before it takes its lock, and it
// lists tools sorted by name whatever the order they came in. On two cores
// registering 1,000 tools takes 29 ms instead of 33 (BenchmarkApply; the
// GC's share of it does not shrink); for the 10 tools of
// examples/tools.hcl the gain is within the noise of a start.
const addToolsPerWorker = 2

// addTool registers one tool. The compiler checks every schema before it
// gets here; should the SDK still refuse one (it panics), the tool is left
// out and the error logged, so that neither a start nor a reload crashes.
func (s *Server) addTool(t *mcp.Tool) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("tool left out: the SDK refused its definition; please report this as a toolhost bug", "tool", t.Name, "error", fmt.Sprint(r))
		}
	}()
	s.mcp.AddTool(t, s.toolHandler)
}

// releaseAfter is the number of tools registered at once from which Apply
// returns freed memory to the OS.
const releaseAfter = 100

// releaseDelay is how long after such an Apply the memory is returned.
const releaseDelay = 250 * time.Millisecond

// sameTool compares two tool definitions as clients see them: every field
// tools/list sends (a field left out here would keep a stale declaration
// in service, since an unchanged tool is not registered again). Their
// schemas are JSON already, so this is cheap.
func sameTool(a, b *mcp.Tool) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		bytes.Equal(a.InputSchema.(json.RawMessage), b.InputSchema.(json.RawMessage)) &&
		rawEqual(a.OutputSchema, b.OutputSchema) && sameJSON(a.Annotations, b.Annotations) &&
		sameJSON(a.Icons, b.Icons) && sameJSON(a.Meta, b.Meta)
}

func rawEqual(a, b any) bool {
	ra, _ := a.(json.RawMessage)
	rb, _ := b.(json.RawMessage)
	return bytes.Equal(ra, rb)
}

// changedJSON reports whether the declarations in b differ from those in
// a. At the first Apply (first true) there is nothing to compare: any
// declaration is a change, and the start does not pay for encoding them.
func changedJSON[T any](first bool, a, b []T) bool {
	if first {
		return len(b) > 0
	}
	return !sameJSON(a, b)
}

func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && reflect.DeepEqual(ja, jb)
}

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
// reason.
func (s *Server) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
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
		peer = &sessionPeer{ss: req.Session, token: req.Params.GetProgressToken()}
	}
	res, err := reg.CallToolFrom(ctx, req.Params.Name, req.Params.Arguments, peer)
	if errors.Is(err, ErrUnknownTool) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
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
	return reg.Complete(req.Params.Ref, req.Params.Argument.Name, req.Params.Argument.Value)
}

// subscribeHandler accepts a subscription to a resource the config serves
// (see Registry.unsubscribable), within the limits on subscriptions; the
// client is notified when a reload changes it. A session subscribes once to
// a URI, however often it asks, as the SDK keeps it.
func (s *Server) subscribeHandler(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri, ss := req.Params.URI, req.Session
	if ss == nil {
		return nil // not through a session: nothing to keep
	}
	if len(uri) > maxResourceURI {
		// checkRequest refused it already; kept in case the SDK
		// subscribes by another way.
		return uriTooLong("subscriptions/listen", "notifications.resourceSubscriptions", uri)
	}
	reg := s.use()
	why := reg.unsubscribable(uri)
	reg.release()
	if why != "" {
		return &jsonrpc.Error{Code: mcp.CodeResourceNotFound,
			Message: fmt.Sprintf("cannot subscribe to %q: %s; subscribe to a URI that resources/list gives, or that a template of resources/templates/list makes for a resource that exists", shortURI(uri), why),
			Data:    uriData(uri)}
	}
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	mine := s.subs[ss]
	if _, ok := mine[uri]; ok {
		return nil
	}
	if len(mine) >= maxSessionSubscriptions {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("cannot subscribe to %q: this session is subscribed to %d resources, as many as toolhost allows one session; unsubscribe (resources/unsubscribe) from those you no longer follow", shortURI(uri), len(mine)),
			Data:    uriData(uri)}
	}
	if s.nsubs >= maxSubscriptions {
		s.logger.Warn("a subscription was refused: the sessions hold as many as toolhost allows", "max_subscriptions", maxSubscriptions)
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("cannot subscribe to %q: the server's sessions hold %d subscriptions, as many as toolhost allows in all; try again later, and unsubscribe from resources you no longer follow", shortURI(uri), s.nsubs),
			Data:    uriData(uri)}
	}
	if s.subsBytes+len(uri) > maxSubscriptionBytes {
		s.logger.Warn("a subscription was refused: the URIs the sessions are subscribed to add up to as many bytes as toolhost allows", "max_subscription_bytes", maxSubscriptionBytes)
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("cannot subscribe to %q: the URIs the server's sessions are subscribed to add up to %d bytes, and this one would take them past the %d toolhost allows in all; try again later, and unsubscribe from resources you no longer follow", shortURI(uri), s.subsBytes, maxSubscriptionBytes),
			Data:    uriData(uri)}
	}
	if mine == nil {
		if s.subs == nil {
			s.subs, s.subscribed = map[*mcp.ServerSession]map[string]struct{}{}, map[string]int{}
		}
		mine = map[string]struct{}{}
		s.subs[ss] = mine
		// Kept, empty, once the session has unsubscribed from everything,
		// so that one goroutine a session waits for its end.
		go s.endSubscriptions(ss)
	}
	mine[uri] = struct{}{}
	s.subscribed[uri]++
	s.nsubs++
	s.subsBytes += len(uri)
	return nil
}

func (s *Server) unsubscribeHandler(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	s.forget(req.Session, req.Params.URI)
	return nil
}

// forget drops a session's subscription to uri, if it has one. The caller
// holds subsMu.
func (s *Server) forget(ss *mcp.ServerSession, uri string) {
	mine := s.subs[ss]
	if _, ok := mine[uri]; !ok {
		return
	}
	delete(mine, uri)
	s.nsubs--
	s.subsBytes -= len(uri)
	if n := s.subscribed[uri]; n > 1 {
		s.subscribed[uri] = n - 1
	} else {
		delete(s.subscribed, uri)
	}
}

// endSubscriptions waits for a session that subscribed to end (a DELETE,
// an idle timeout, a closed connection or stdin) and drops its
// subscriptions: toolhost's, and the URIs the SDK would keep. The SDK
// forgets an ended session, but keeps each URI it was subscribed to, with
// no subscriber; its handling of resources/unsubscribe deletes a URI left
// with none.
func (s *Server) endSubscriptions(ss *mcp.ServerSession) {
	_ = ss.Wait()
	s.subsMu.Lock()
	uris := slices.Collect(maps.Keys(s.subs[ss]))
	for _, uri := range uris {
		s.forget(ss, uri)
	}
	s.subsMu.Unlock()
	// The SDK's handling calls unsubscribeHandler first, which finds
	// nothing left to forget.
	for _, uri := range uris {
		_, _ = s.sdkHandler(context.Background(), "resources/unsubscribe", &mcp.UnsubscribeRequest{
			Session: ss, Params: &mcp.UnsubscribeParams{URI: uri}})
	}
	s.subsMu.Lock()
	delete(s.subs, ss)
	s.subsMu.Unlock()
}

// shortURI is uri cut to a length a message can quote: at most
// maxQuotedURI bytes of valid UTF-8, and "..." when cut.
func shortURI(uri string) string {
	if len(uri) <= maxQuotedURI {
		return strings.ToValidUTF8(uri, "\uFFFD")
	}
	return strings.ToValidUTF8(uri[:maxQuotedURI], "\uFFFD") + "..."
}

// maxQuotedURI is the most bytes of a client's resource URI an error quotes.
const maxQuotedURI = 200

// uriData is the data of an error about a resource URI, as the SDK's
// "Resource not found" has it: {"uri": ...}, shortened as in the message.
func uriData(uri string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"uri": shortURI(uri)})
	return b
}

// subscribedURIs lists the resource URIs with subscribers.
func (s *Server) subscribedURIs() []string {
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	uris := make([]string, 0, len(s.subscribed))
	for u := range s.subscribed {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	return uris
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
	// The ballast (see gcHeapFloor) is made once the session has started:
	// its allocation starts a GC cycle, which would delay the first answer.
	stop := make(chan struct{})
	held := make(chan []byte, 1)
	go func() {
		var ballast []byte
		t := time.NewTimer(ballastDelay)
		select {
		case <-t.C:
			ballast = gcBallast()
		case <-stop:
			t.Stop()
		}
		held <- ballast
	}()
	defer func() {
		close(stop)
		runtime.KeepAlive(<-held)
	}()
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// ServerInfo returns the server block in service, for inspect.
func (s *Server) ServerInfo() *thcl.Server { return s.current.Load().Config.Server }

// sdkLogger quiets the SDK's per-session chatter: it logs at warn and above
// unless toolhost runs at debug.
func sdkLogger(l *slog.Logger) *slog.Logger {
	if l.Enabled(context.Background(), slog.LevelDebug) {
		return l.With("component", "mcp")
	}
	return slog.New(minLevel{l.Handler(), slog.LevelWarn}).With("component", "mcp")
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

// gcHeapFloor is the live heap, ballast included, that serving keeps the
// GC paced for: its heap goal is then at least twice this.
//
// The SDK decodes each message through new JSON decoders with 32 KiB
// buffers: a tools/call leaves about 70 KB of garbage, 90% of it the SDK's.
// With the small live heap of a typical config (a few MB), Go's GC would
// run every 50 or so calls and take a third of the CPU. A pointer-free
// ballast that tops the live heap up to the floor makes the GC run about
// five times less often: calls per second double at 8 and 64 in flight. It
// costs address space rather than memory (its pages are not written, so
// they stay out of RSS), and it adds to the heap goal rather than
// multiplying it as a higher GOGC would, so the heap of a large body grows
// by a constant, not a factor. A config whose live heap is already at the
// floor gets no ballast. The cost: RSS under load is about 10 MB higher,
// and the peak of a call that holds a large body is up to twice the
// ballast higher (bench/driver measures both).
const gcHeapFloor = 12 << 20

// ballastDelay is how long after the start of a session the ballast is
// made.
const ballastDelay = 200 * time.Millisecond

// gcBallast returns the ballast to hold while serving, or nil when none is
// needed or when GOGC or GOMEMLIMIT is set: whoever set them chose the
// GC's pacing.
func gcBallast() []byte {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	// The heap marked live by the last collection, as runtime/metrics'
	// /gc/heap/live:bytes reports it (used before; its package
	// initialisation cost every start about 0.1 ms): none before the
	// first collection, and after one, HeapAlloc right after a collection
	// made here. HeapAlloc alone also counts the garbage made since the
	// last one: read right after a load, when that is up to three times
	// the live heap, it left a config of a few hundred tools without the
	// ballast (its GC ran twice as often). This runs 200 ms into a
	// session, off the path of any answer, when the GC's settings come
	// back (RelaxGC) and a collection would run anyway.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var live uint64
	if ms.NumGC > 0 {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		live = ms.HeapAlloc
	}
	if live >= gcHeapFloor-1<<20 {
		return nil
	}
	return make([]byte, gcHeapFloor-live)
}
