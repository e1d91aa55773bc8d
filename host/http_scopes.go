package host

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"

	thcl "github.com/toolhost/toolhost/hcl"
	ident "github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/suggest"
)

// requestCaller is the verified caller of an HTTP request, or nil.
func requestCaller(r *http.Request) *ident.Caller {
	return ident.FromTokenInfo(auth.TokenInfoFromContext(r.Context()))
}

// mcpGroupPath is the group of a /mcp/NAME path; false for any other.
func mcpGroupPath(r *http.Request) (string, bool) {
	name, ok := strings.CutPrefix(r.URL.Path, "/mcp/")
	return name, ok && name != "" && !strings.Contains(name, "/")
}

// sseGroupPath is the group of a /sse/NAME or /sse/NAME/messages path,
// and whether it is the messages one.
func sseGroupPath(r *http.Request) (name string, messages, ok bool) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/sse/")
	name, sub, _ := strings.Cut(rest, "/")
	return name, sub == "messages", ok && name != "" && (sub == "" || sub == "messages")
}

// servePath serves a request on one of the MCP paths of group (its name,
// or "" for /mcp, /sse and /messages): it answers 404 when the config has
// no such group (or serve --group serves another), and 403 when the
// caller's token lacks the group's scopes; otherwise it tells the server
// the group in groupHeader, which it first removes from what the client
// sent. On the server's own paths, the group of serve --group, if any,
// is checked the same way.
func (h *HTTPServer) servePath(w http.ResponseWriter, r *http.Request, group string, next http.Handler) {
	r.Header.Del(groupHeader)
	r.Header.Del(requestIDHeader) // ours to set (markRequestID)
	only := h.srv.group
	name := group
	if name == "" {
		name = only
	}
	if name == "" {
		next.ServeHTTP(w, r)
		return
	}
	var g *thcl.Group
	var names []string
	if reg := h.srv.current.Load(); reg != nil && reg.Config != nil {
		g = reg.Config.Group(name)
		for _, n := range reg.Config.GroupNames() {
			// Only the groups the caller's token may enter are named.
			if len(requestCaller(r).Missing(reg.Config.Group(n).Scopes)) == 0 {
				names = append(names, n)
			}
		}
	}
	switch {
	case only != "" && group != "" && group != only:
		refuse(w, r, http.StatusNotFound, "unknown group",
			fmt.Sprintf("Not Found: this server serves only the group %q (serve --group), at /mcp and /sse; connect there.", only))
		return
	case g == nil && group == "":
		refuse(w, r, http.StatusNotFound, "unknown group",
			fmt.Sprintf("Not Found: the group %q that serve --group names is not in the config any more; add it back, or restart toolhost without --group.", only))
		return
	case g == nil:
		refuse(w, r, http.StatusNotFound, "unknown group",
			fmt.Sprintf("Not Found: the config has no group %q.%s Groups are served at /mcp/NAME and /sse/NAME; the config's are: %s.", name, suggest.Hint(name, names), groupList(names)))
		return
	}
	if missing := requestCaller(r).Missing(g.Scopes); len(missing) > 0 {
		h.refuseScopes(w, r, g.Scopes, fmt.Sprintf("Forbidden: the group %q needs a token that grants %s; ask the authorization server for one.", name, scopeList(g.Scopes)))
		return
	}
	if group != "" {
		r.Header.Set(groupHeader, group)
	}
	next.ServeHTTP(w, r)
}

// groupList names groups for a message.
func groupList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(quoteAll(names), ", ")
}

// refuseScopes answers 403 with the insufficient_scope challenge of the
// MCP authorization spec (RFC 6750, section 3.1), naming the scopes a
// token needs and where the protected resource's metadata is, so that a
// client can ask for a token that grants them (step-up).
func (h *HTTPServer) refuseScopes(w http.ResponseWriter, r *http.Request, scopes []string, msg string) {
	w.Header().Set("WWW-Authenticate", scopeChallenge(h.resourceMetadataURL(r), scopes))
	refuse(w, r, http.StatusForbidden, "insufficient scope", msg)
}

// scopeChallenge is the WWW-Authenticate value of a 403 for scopes.
func scopeChallenge(metadata string, scopes []string) string {
	return fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, strings.Join(scopes, " "), metadata)
}

// resourceMetadataURL is where the metadata of the resource r reaches is
// (RFC 9728, section 3.1: the well-known path, then the resource's path):
// with an auth block, the one document of its audience, which 401s name
// too (a group's path is under the audience, so clients take that
// document's resource for it); else on the origin the request came to.
func (h *HTTPServer) resourceMetadataURL(r *http.Request) string {
	if reg := h.srv.current.Load(); reg != nil && reg.Config != nil && reg.Config.Server != nil && reg.Config.Server.Auth != nil {
		return prmURL(reg.Config.Server.Auth.Audience)
	}
	origin := "http://" + r.Host
	if r.TLS != nil {
		origin = "https://" + r.Host
	}
	return origin + prmPath + r.URL.EscapedPath()
}

// refuseItemScopes answers 403 to a POST of one call for a tool, resource
// or prompt whose scopes the caller's token lacks, with the challenge of
// refuseScopes and the JSON-RPC error that receive would give; false
// when the call may go on (items outside the group, or unknown, are
// answered by the server).
func (h *HTTPServer) refuseItemScopes(w http.ResponseWriter, r *http.Request, m *peekedMessage) bool {
	reg := h.srv.current.Load()
	if reg == nil || !reg.access().scoped {
		return false
	}
	a, ok := askedIn(m.Method, m.Params)
	if !ok {
		return false
	}
	t, ok := reg.targetOf(a)
	if !ok || len(t.scopes) == 0 {
		return false
	}
	v := view{remote: true, caller: requestCaller(r), group: r.Header.Get(groupHeader)}
	if v.group == "" {
		v.group = h.srv.group
	}
	if !v.member(reg, t.kind, t.name) || len(v.missing(t.scopes)) == 0 {
		return false
	}
	w.Header().Set("WWW-Authenticate", scopeChallenge(h.resourceMetadataURL(r), t.scopes))
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = "insufficient scope"
	}
	writeRPCErrorData(w, http.StatusForbidden, m.ID, insufficientScope(t))
	return true
}

// route registers the MCP paths on mux: streamable HTTP at /mcp and
// /mcp/NAME, legacy SSE at /sse and /sse/NAME (whose messages go to
// /messages and /sse/NAME/messages), each behind guard and servePath.
func (h *HTTPServer) route(mux *http.ServeMux, streamable http.Handler) {
	at := func(group func(*http.Request) (string, bool), next http.Handler) http.Handler {
		return h.guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			name, ok := group(r)
			if !ok {
				serveNotFound(w, r)
				return
			}
			h.servePath(w, r, name, next)
		}))
	}
	own := func(*http.Request) (string, bool) { return "", true }
	sseGroup := func(r *http.Request) (string, bool) {
		name, _, ok := sseGroupPath(r)
		return name, ok
	}
	mux.Handle("/mcp", at(own, streamable))
	mux.Handle("/mcp/", at(mcpGroupPath, streamable))
	mux.Handle("/sse", at(own, http.HandlerFunc(h.sse.serveStream)))
	mux.Handle("/sse/", at(sseGroup, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, messages, _ := sseGroupPath(r); messages {
			h.sse.serveMessage(w, r)
			return
		}
		h.sse.serveStream(w, r)
	})))
	messages := at(own, http.HandlerFunc(h.sse.serveMessage))
	mux.Handle("/messages", messages)
	mux.Handle("/messages/", messages)
}
