package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	ident "github.com/toolhost/toolhost/internal/identity"
)

// Scopes and groups: a tool, resource, resource template or prompt with
// scopes is seen and used over HTTP only by a caller whose token grants
// them all; a group serves some of them on its own path (/mcp/NAME,
// /sse/NAME) or alone (serve --group). stdio and the bridge have no caller:
// the local user owns the process, and nothing is filtered there.

// groupHeader is the request header in which the HTTP layer tells the
// server which group a request came in on: set by servePath from the
// request's path, after it removed whatever a client sent under that name.
const groupHeader = "Toolhost-Group"

// codeInsufficientScope is the JSON-RPC error code of a call, read or get
// the caller's token lacks the scopes of, where no HTTP status can say so
// (a task, the legacy SSE stream); its data names the scopes. A code of
// the implementation's range (-32000 to -32099) that neither the SDK's
// JSON-RPC layer (-32001 to -32005) nor MCP (-32020 to -32022, -32042)
// uses.
const codeInsufficientScope = -32043

// ServeGroup gives NewServer the group to serve alone (serve --group):
// requests on stdio, and on /mcp and /sse over HTTP, see only its members.
func ServeGroup(name string) ServerOption {
	return func(o *serverOptions) { o.group = name }
}

// access is what the registry knows of scopes and groups, made once on
// first use (see Registry.access).
type access struct {
	// scoped is whether some tool, resource, template or prompt has
	// scopes: without any, and outside groups, nothing is filtered.
	scoped bool
	groups map[string]*groupAccess
}

// groupAccess is one group: its scopes and members by name (resources
// and templates together, as the group block lists them).
type groupAccess struct {
	scopes                    []string
	tools, resources, prompts map[string]bool
}

// accessOnce holds a Registry's access, made on first use.
type accessOnce struct {
	once sync.Once
	a    *access
}

// access returns the registry's scopes and groups.
func (r *Registry) access() *access {
	r.acc.once.Do(func() {
		a := &access{groups: map[string]*groupAccess{}}
		if r.Config == nil {
			r.acc.a = a
			return
		}
		for _, t := range r.tools {
			a.scoped = a.scoped || len(t.Scopes) > 0
		}
		for _, res := range r.resources {
			a.scoped = a.scoped || len(res.Scopes) > 0
		}
		for _, t := range r.templates {
			a.scoped = a.scoped || len(t.decl.Scopes) > 0
		}
		for _, p := range r.prompts {
			a.scoped = a.scoped || len(p.Scopes) > 0
		}
		set := func(names []string) map[string]bool {
			m := make(map[string]bool, len(names))
			for _, n := range names {
				m[n] = true
			}
			return m
		}
		for _, g := range r.Config.Groups {
			a.groups[g.Name] = &groupAccess{scopes: g.Scopes, tools: set(g.Tools), resources: set(g.Resources), prompts: set(g.Prompts)}
		}
		r.acc.a = a
	})
	return r.acc.a
}

// view is who asks, and where: remote is set for requests over HTTP,
// where scopes apply (a caller of nil, HTTP without an auth block, has
// none); group is the group the request came in on, "" for all.
type view struct {
	remote bool
	caller *ident.Caller
	group  string
}

// viewOf is the view of a request that ctx (which receive gave the
// caller) and req carry: the group is the one of the request's path, or
// the one serve --group serves.
func (s *Server) viewOf(ctx context.Context, req mcp.Request) view {
	v := view{caller: ident.FromContext(ctx), group: s.group}
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		v.remote = true
		if g := ex.Header.Get(groupHeader); g != "" {
			v.group = g
		}
	}
	return v
}

// filtered reports whether v sees less than all of reg: outside a group,
// with no scopes in the config or no caller to check, it sees all.
func (v view) filtered(reg *Registry) bool {
	return v.group != "" || v.remote && reg.access().scoped
}

// missing returns the scopes of need v's caller lacks; none outside HTTP.
func (v view) missing(need []string) []string {
	if !v.remote || len(need) == 0 {
		return nil
	}
	return v.caller.Missing(need)
}

// member reports whether the item name of a kind ("tool", "resource",
// "prompt") is in v's group; everything is when v has none, nothing when
// the group is not (any more) in reg.
func (v view) member(reg *Registry, kind, name string) bool {
	if v.group == "" {
		return true
	}
	g := reg.access().groups[v.group]
	if g == nil {
		return false
	}
	switch kind {
	case "tool":
		return g.tools[name]
	case "resource":
		return g.resources[name]
	}
	return g.prompts[name]
}

// sees reports whether v sees an item: a member of its group whose scopes
// its caller has.
func (v view) sees(reg *Registry, kind, name string, scopes []string) bool {
	return v.member(reg, kind, name) && len(v.missing(scopes)) == 0
}

// filterList drops from a list result what v does not see. The SDK's
// slices are not changed: a filtered result has new ones.
func (v view) filterList(reg *Registry, method string, res mcp.Result) mcp.Result {
	if !v.filtered(reg) {
		return res
	}
	switch r := res.(type) {
	case *mcp.ListToolsResult:
		if r != nil {
			c := *r
			c.Tools = keep(r.Tools, func(t *mcp.Tool) bool {
				d := reg.tools[t.Name]
				return d != nil && v.sees(reg, "tool", t.Name, d.Scopes)
			})
			return &c
		}
	case *mcp.ListResourcesResult:
		if r != nil {
			c := *r
			c.Resources = keep(r.Resources, func(x *mcp.Resource) bool {
				d := reg.resources[x.URI]
				return d != nil && v.sees(reg, "resource", d.Name, d.Scopes)
			})
			return &c
		}
	case *mcp.ListResourceTemplatesResult:
		if r != nil {
			c := *r
			c.ResourceTemplates = keep(r.ResourceTemplates, func(x *mcp.ResourceTemplate) bool {
				for _, t := range reg.templates {
					if t.decl.URITemplate == x.URITemplate {
						return v.sees(reg, "resource", t.decl.Name, t.decl.Scopes)
					}
				}
				return false
			})
			return &c
		}
	case *mcp.ListPromptsResult:
		if r != nil {
			c := *r
			c.Prompts = keep(r.Prompts, func(p *mcp.Prompt) bool {
				d := reg.prompts[p.Name]
				return d != nil && v.sees(reg, "prompt", p.Name, d.Scopes)
			})
			return &c
		}
	}
	return res
}

// keep returns the items of list for which ok is true, in a new slice.
func keep[T any](list []T, ok func(T) bool) []T {
	out := make([]T, 0, len(list))
	for _, x := range list {
		if ok(x) {
			out = append(out, x)
		}
	}
	return out
}

// target is the item a request uses: its kind, name and scopes, and how
// the request named it (a name or a URI).
type target struct {
	kind, name, given string
	scopes            []string
}

// asked is what a request names: a tool or prompt by name, a resource by
// URI, or a completion's reference (its type, and a name or URI).
type asked struct {
	method, name, uri, refType string
}

// askedIn is what a tools/call, prompts/get, resources/read,
// resources/subscribe or completion/complete with params names, read
// from its JSON (the HTTP layer peeks it before the SDK decodes it).
func askedIn(method string, params json.RawMessage) (asked, bool) {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
		Ref  struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
	}
	switch method {
	case "tools/call", "prompts/get", "resources/read", "resources/subscribe", "completion/complete":
	default:
		return asked{}, false
	}
	if json.Unmarshal(params, &p) != nil {
		return asked{}, false
	}
	if method == "completion/complete" {
		return asked{method: method, name: p.Ref.Name, uri: p.Ref.URI, refType: p.Ref.Type}, true
	}
	return asked{method: method, name: p.Name, uri: p.URI}, true
}

// askedBy is what a request the SDK decoded names (see askedIn).
func askedBy(method string, req mcp.Request) (asked, bool) {
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		return asked{method: method, name: p.Name}, p != nil
	case *mcp.GetPromptParams:
		return asked{method: method, name: p.Name}, p != nil
	case *mcp.ReadResourceParams:
		return asked{method: method, uri: p.URI}, p != nil
	case *mcp.SubscribeParams:
		return asked{method: method, uri: p.URI}, p != nil
	case *mcp.CompleteParams:
		if p == nil || p.Ref == nil {
			return asked{}, false
		}
		return asked{method: method, name: p.Ref.Name, uri: p.Ref.URI, refType: p.Ref.Type}, true
	}
	return asked{}, false
}

// targetOf returns the item a request names; false for names reg does
// not have (the handler answers those).
func (reg *Registry) targetOf(a asked) (target, bool) {
	switch {
	case a.method == "tools/call":
		if t, ok := reg.tools[a.name]; ok {
			return target{kind: "tool", name: a.name, given: a.name, scopes: t.Scopes}, true
		}
	case a.method == "prompts/get" || a.refType == "ref/prompt":
		if p, ok := reg.prompts[a.name]; ok {
			return target{kind: "prompt", name: a.name, given: a.name, scopes: p.Scopes}, true
		}
	case a.refType != "":
		for _, t := range reg.templates {
			if t.decl.URITemplate == a.uri {
				return target{kind: "resource", name: t.decl.Name, given: a.uri, scopes: t.decl.Scopes}, true
			}
		}
	default:
		if res, ok := reg.resources[a.uri]; ok {
			return target{kind: "resource", name: res.Name, given: a.uri, scopes: res.Scopes}, true
		}
		for _, t := range reg.templates {
			if t.matches(a.uri) {
				return target{kind: "resource", name: t.decl.Name, given: a.uri, scopes: t.decl.Scopes}, true
			}
		}
	}
	return target{}, false
}

// authorize refuses a request for an item outside v's group, or whose
// scopes v's caller lacks, with a JSON-RPC error; nil for the rest. A
// subscriptions/listen is refused for the first resource of its
// resourceSubscriptions that resources/subscribe would be refused.
func (v view) authorize(reg *Registry, method string, req mcp.Request) error {
	if !v.filtered(reg) {
		return nil
	}
	if p, ok := req.GetParams().(*mcp.SubscriptionsListenParams); ok && p != nil && p.Notifications != nil {
		// The SDK subscribes to these itself, past this middleware.
		for _, uri := range p.Notifications.ResourceSubscriptions {
			if err := v.authorizeAsked(reg, asked{method: "resources/subscribe", uri: uri}); err != nil {
				return err
			}
		}
		return nil
	}
	a, ok := askedBy(method, req)
	if !ok {
		return nil
	}
	return v.authorizeAsked(reg, a)
}

// authorizeAsked is authorize for what a request names.
func (v view) authorizeAsked(reg *Registry, a asked) error {
	t, ok := reg.targetOf(a)
	if !ok {
		return nil
	}
	if !v.member(reg, t.kind, t.name) {
		return notInGroup(v.group, t)
	}
	if len(v.missing(t.scopes)) > 0 {
		return insufficientScope(t)
	}
	return nil
}

// notInGroup is the error of a request for an item the group on the
// request's path does not have; it says no more of the item than a list
// would.
func notInGroup(group string, t target) *jsonrpc.Error {
	code := int64(jsonrpc.CodeInvalidParams)
	if t.kind == "resource" {
		code = mcp.CodeResourceNotFound
	}
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf("The group %q served here has no %s %q; its %ss/list shows what it has.", group, t.kind, t.given, t.kind)}
}

// insufficientScope is the JSON-RPC error of a request for an item whose
// scopes the caller's token lacks; its data names them as the HTTP
// answer's WWW-Authenticate does.
func insufficientScope(t target) *jsonrpc.Error {
	scope := strings.Join(t.scopes, " ")
	data, _ := json.Marshal(map[string]string{"error": "insufficient_scope", "scope": scope})
	return &jsonrpc.Error{
		Code:    codeInsufficientScope,
		Message: fmt.Sprintf("Insufficient scope: the %s %q needs a token that grants %s; ask the authorization server for one.", t.kind, t.given, scopeList(t.scopes)),
		Data:    data,
	}
}

// scopeList is scopes quoted and joined with "and", for messages.
func scopeList(scopes []string) string {
	q := quoteAll(scopes)
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// noteAccessChanges warns when the group of serve --group is not in reg,
// and tells clients that the lists changed when a reload
// from old to reg changed what a caller or a group sees: scopes and
// groups, which the SDK's registrations do not hold, so that the SDK
// sends nothing of its own for them. Registering the first item of each
// kind again makes it send its list_changed notification.
func (s *Server) noteAccessChanges(old, reg *Registry) {
	if s.group != "" && reg.Config != nil && !reg.Placeholder() && reg.Config.Group(s.group) == nil {
		s.logger.Warn("the group that serve --group serves is not in the config: nothing is served until it is back", "group", s.group)
	}
	if old == nil || accessKey(old) == accessKey(reg) {
		return
	}
	for _, t := range s.registrations(reg.Tools[:min(1, len(reg.Tools))]) {
		s.addTool(t)
	}
	if len(reg.Resources) > 0 {
		s.mcp.AddResource(reg.Resources[0], s.resourceHandler)
	} else if len(reg.Templates) > 0 {
		s.mcp.AddResourceTemplate(reg.Templates[0], s.resourceHandler)
	}
	if len(reg.Prompts) > 0 {
		s.mcp.AddPrompt(reg.Prompts[0], s.promptHandler)
	}
}

// accessKey is the scopes of reg's items and its groups, as one string
// that changes when any of them does.
func accessKey(reg *Registry) string {
	if reg.Config == nil {
		return ""
	}
	var b strings.Builder
	c := reg.Config
	for _, it := range c.ScopedItems() {
		fmt.Fprintf(&b, "%s %q %q\n", it.Kind, it.Name, it.Scopes)
	}
	for _, g := range c.Groups {
		fmt.Fprintf(&b, "group %q %q %q %q %q\n", g.Name, g.Tools, g.Resources, g.Prompts, g.Scopes)
	}
	return b.String()
}
