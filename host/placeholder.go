package host

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
)

// placeholder marks a registry served while no valid config has loaded
// (PlaceholderRegistry): it holds the errors of the load that failed.
type placeholder struct {
	diags hcl.Diagnostics
	// auth is whether the broken config has an auth block: its errors are
	// then not told to clients over HTTP (Server.clientText).
	auth bool
}

// PlaceholderRegistry is what serve serves, when it watches the config,
// while the config has never loaded without errors: no tools, resources or
// prompts, and a server block of toolhost's defaults whose instructions say
// that the config has errors and no tools are served until a save fixes
// them. failed is the registry Load returned with diags, the errors; it is
// closed here.
//
// It serves nothing of a config with errors, not even its blocks that have
// none: an error in the server block (a network policy, a call limit), or
// in a block another refers to, changes what the valid blocks would do, and
// a tool served without the policy its author wrote is worse than no tool.
// A client sees the tools as soon as the whole config is valid.
func PlaceholderRegistry(failed *Registry, diags hcl.Diagnostics) *Registry {
	var files map[string]*hcl.File
	var paths []string
	if failed != nil {
		if failed.Config != nil {
			files, paths = failed.Config.Files, failed.Config.Paths
		}
		failed.Close()
	}
	auth := hasAuthBlock(files)
	srv := &thcl.Server{Name: "toolhost", Version: thcl.Version, MaxConcurrentCalls: thcl.DefaultMaxConcurrentCalls}
	srv.Instructions = fmt.Sprintf("toolhost could not load its config: %s. No tools, resources or prompts are served until the config is saved without errors; toolhost then loads it and tells the client that the lists changed. The server's log, its logging notifications and toolhost validate show every error and how to fix it.", errorCount(diags))
	if first := firstError(diags); first != "" && !auth {
		srv.Instructions += " The first: " + first + "."
	}
	return &Registry{
		// Files, for a reload to tell the files that were empty already
		// from those an editor is saving (Reloader.newlyEmpty); Paths, for
		// the log.
		Config:      &thcl.Config{Server: srv, Files: files, Paths: paths},
		functions:   thcl.StaticEval(nil),
		slots:       make(chan struct{}, thcl.DefaultMaxConcurrentCalls),
		placeholder: &placeholder{diags: diags, auth: auth},
	}
}

// Placeholder reports whether r is a PlaceholderRegistry: no valid config
// has loaded.
func (r *Registry) Placeholder() bool { return r != nil && r.placeholder != nil }

// errorCount says how many errors diags has, as "1 error" or "3 errors".
func errorCount(diags hcl.Diagnostics) string {
	if n := countErrors(diags); n != 1 {
		return fmt.Sprintf("%d errors", n)
	}
	return "1 error"
}

// notice is an error a client is told once, as a logging notification,
// at the first moment it can hear one: the errors of the config on disk,
// while they last. The clients connected when it is set hear it from the
// Reloader's broadcast; a client that connects later hears it once it is
// initialized (see tell).
type notice struct {
	text atomic.Pointer[string]
	// mu orders set against tell's marking of a session.
	mu sync.Mutex
	// told holds the sessions that heard the notice in service, by weak
	// pointer; an entry is deleted once its session is garbage.
	told map[weak.Pointer[mcp.ServerSession]]struct{}
}

// SetNotice puts an error in service that every client hears once, as a
// logging notification at level error: the clients connected now are
// taken to have heard it (the caller has sent it to them with Notify), and
// a client that connects later hears it once it is initialized. An empty
// text takes it out of service.
func (s *Server) SetNotice(text string) {
	n := &s.notice
	n.mu.Lock()
	defer n.mu.Unlock()
	n.told = nil
	if text == "" {
		n.text.Store(nil)
		return
	}
	n.told = map[weak.Pointer[mcp.ServerSession]]struct{}{}
	for ss := range s.mcp.Sessions() {
		if ss.InitializeParams() != nil {
			n.mark(ss)
		}
	}
	n.text.Store(&text)
}

// mark records that ss heard the notice; n.mu is held.
func (n *notice) mark(ss *mcp.ServerSession) {
	key := weak.Make(ss)
	if _, ok := n.told[key]; ok {
		return
	}
	n.told[key] = struct{}{}
	told := n.told
	runtime.AddCleanup(ss, func(k weak.Pointer[mcp.ServerSession]) {
		n.mu.Lock()
		delete(told, k)
		n.mu.Unlock()
	}, key)
}

// tellNotice sends the notice in service, if any, to the session of a
// request it has not been sent to, at the first moment the session can
// hear it: for a session of stdio (which has no session ID), once
// notifications/initialized says the client is ready; for any session,
// with the first request after initialize, in that request's context, so
// that over streamable HTTP it travels in the request's response stream,
// which the client reads (a notification sent outside a request goes to
// the GET stream, which the client may not have opened yet).
func (s *Server) tellNotice(ctx context.Context, method string, req mcp.Request) {
	text := s.notice.text.Load()
	if text == nil {
		return
	}
	switch {
	case method == "initialize":
		return
	case method == "notifications/initialized":
	case strings.HasPrefix(method, "notifications/"):
		return
	}
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil || ss.InitializeParams() == nil && !requestOfNewProtocol(req) {
		// Not initialized; a 2026-07-28 request needs no initialize, and
		// hears logs at the level its _meta asks for.
		return
	}
	if method == "notifications/initialized" && ss.ID() != "" {
		return
	}
	n := &s.notice
	n.mu.Lock()
	if n.text.Load() != text {
		n.mu.Unlock()
		return // replaced or cleared meanwhile, with a broadcast
	}
	_, told := n.told[weak.Make(ss)]
	if !told {
		n.mark(ss)
	}
	n.mu.Unlock()
	if !told {
		_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Logger: "toolhost", Data: s.clientText(*text)})
	}
}

// notReadyBroken is the status /readyz gives while no valid config has
// loaded. /readyz answers without authentication, so it names no file.
const notReadyBroken = "not ready: the config has errors and no valid config has loaded yet; the server's log shows them, and the server loads the config once it is saved without them"

// placeholderHint ends the message of a request for a tool or prompt the
// registry does not declare, when it is a PlaceholderRegistry: why none
// is declared.
func (r *Registry) placeholderHint() string {
	if !r.Placeholder() {
		return ""
	}
	return ": the config has errors, and nothing is served until it is saved without them (the server's log and toolhost validate show them)"
}
