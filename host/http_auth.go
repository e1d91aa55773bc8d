package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
	ident "github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/oauth"
)

// prmPath is where the Protected Resource Metadata (RFC 9728) is served;
// also with the MCP endpoint's path after it (/mcp), as clients derive it
// from the server's URL.
const prmPath = "/.well-known/oauth-protected-resource"

// oauthState is the token verifier of the auth block in service. It
// follows reloads: a changed auth block gets a new Verifier (and empty
// caches), an unchanged one keeps its own.
type oauthState struct {
	mu  sync.Mutex // one rebuild at a time
	cur atomic.Pointer[oauthCurrent]
}

// oauthCurrent is one auth block (nil when the config has none) and its
// Verifier.
type oauthCurrent struct {
	cfg *thcl.Auth
	v   *oauth.Verifier
}

// verifier returns the Verifier of the auth block of the config in
// service, or nil when it has none (then the static token applies, if
// set).
func (h *HTTPServer) verifier() *oauth.Verifier {
	var a *thcl.Auth
	if reg := h.srv.Registry(); reg != nil && reg.Config != nil && reg.Config.Server != nil {
		a = reg.Config.Server.Auth
	}
	if cur := h.oauth.cur.Load(); cur != nil && cur.cfg == a {
		return cur.v
	}
	h.oauth.mu.Lock()
	defer h.oauth.mu.Unlock()
	cur := h.oauth.cur.Load()
	if cur != nil && cur.cfg == a {
		return cur.v
	}
	next := &oauthCurrent{cfg: a}
	switch {
	case a == nil:
		if cur != nil && cur.v != nil {
			h.logger.Warn("the config has no auth block any more: HTTP requests no longer need an OAuth token" + h.staticNote())
		}
	case cur != nil && cur.v != nil && sameAuth(cur.cfg, a):
		next.v = cur.v
	default:
		next.v = oauth.New(a, h.logger.With("component", "oauth"))
		from := a.Issuer
		if from == "" {
			from = firstOf2(a.JWKSURL, a.IntrospectionURL)
		}
		h.logger.Info("HTTP requests need an OAuth bearer token (the auth block)", "audience", a.Audience, "issuer", from, "scopes", strings.Join(a.Scopes, " "))
		if note := sseAudienceNote(a.Audience); note != "" {
			h.logger.Info(note)
		}
		if h.opts.AuthToken != "" {
			h.logger.Warn("--auth-token-env is ignored while the config has an auth block: clients send OAuth tokens from the issuer, not the static token; drop --auth-token-env, or the auth block")
		}
	}
	h.oauth.cur.Store(next)
	return next.v
}

// authOf is the auth block of reg's config, or nil.
func authOf(reg *Registry) *thcl.Auth {
	if reg == nil || reg.Config == nil || reg.Config.Server == nil {
		return nil
	}
	return reg.Config.Server.Auth
}

// endSessionsOnAuthChange closes the sessions open when a reload from old
// to reg puts in an auth block, or changes it: they were opened without a
// token, or with one the new block may not take, and the SDK binds a
// session to the subject that opened it (none, for the first), so any
// token would do in them, and their GET streams would go on getting
// notifications. Their clients connect again, with tokens the new block
// takes. A block removed leaves them open: every request is then.
func (h *HTTPServer) endSessionsOnAuthChange(old, reg *Registry) {
	was, is := authOf(old), authOf(reg)
	if is == nil || (was != nil && sameAuth(was, is)) {
		return
	}
	n := 0
	for ss := range h.srv.MCP().Sessions() {
		if h.statelessSession(ss) {
			continue // one request's, checked with the block it came under
		}
		n++
		h.ended.Store(ss.ID(), struct{}{})
		go func() { _ = ss.Close() }()
	}
	if n > 0 {
		h.logger.Info("the auth block changed: the sessions opened before it are closed, and their clients connect again with tokens it takes", "sessions", n)
	}
}

// refuseEnded answers 404, as for a session that is gone, a request of a
// session that an auth change closed (endSessionsOnAuthChange): it is
// refused from the moment of the change, though its closing, which runs
// on its own, may not have ended it yet.
func (h *HTTPServer) refuseEnded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
			if _, ended := h.ended.Load(sid); ended {
				http.Error(w, "session not found", http.StatusNotFound)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// staticNote says, after the auth block is gone, what protects the
// endpoints now.
func (h *HTTPServer) staticNote() string {
	if h.opts.AuthToken != "" {
		return "; the static token of --auth-token-env applies again"
	}
	return ""
}

// firstOf2 returns a, or b when a is empty.
func firstOf2(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sameAuth reports whether two auth blocks say the same, wherever they are.
func sameAuth(a, b *thcl.Auth) bool {
	x, y := *a, *b
	x.DeclRange, y.DeclRange = thcl.Auth{}.DeclRange, thcl.Auth{}.DeclRange
	return reflect.DeepEqual(x, y)
}

// checkOAuth checks the bearer token of r against v. On success it
// returns r carrying the Caller, both as the SDK's TokenInfo (which its
// handlers get in their request's Extra, and which binds a session to
// the token's subject) and in identity's context; otherwise it answers
// 401, 403 or 503 and returns false.
func (h *HTTPServer) checkOAuth(w http.ResponseWriter, r *http.Request, v *oauth.Verifier) (*http.Request, bool) {
	cfg := v.Config()
	meta := prmURL(cfg.Audience)
	challenge := func(params ...string) {
		w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(append(params, fmt.Sprintf("resource_metadata=%q", meta)), ", "))
	}
	scopeParam := fmt.Sprintf("scope=%q", strings.Join(cfg.Scopes, " "))
	fields := strings.Fields(r.Header.Get("Authorization"))
	if len(fields) != 2 || !strings.EqualFold(fields[0], "Bearer") {
		// No token (or not a bearer one): RFC 6750 3.1 asks for no error code.
		if len(cfg.Scopes) > 0 {
			challenge(scopeParam)
		} else {
			challenge()
		}
		how := "this server takes OAuth bearer tokens: get one from the authorization server its metadata names (" + meta + ") and send it as the header Authorization: Bearer TOKEN"
		if len(fields) > 0 {
			how = "the Authorization header is not Bearer TOKEN: " + how
		}
		refuse(w, r, http.StatusUnauthorized, "unauthorized", "Unauthorized: "+how)
		return nil, false
	}
	caller, err := v.Verify(r.Context(), fields[1])
	if errors.Is(err, oauth.ErrUnavailable) {
		h.logger.Debug("cannot check a token", "error", err) // the verifier warns once per outage
		w.Header().Set("Retry-After", "5")
		refuse(w, r, http.StatusServiceUnavailable, "token issuer unreachable",
			"Service Unavailable: toolhost cannot check the token now, because "+strings.TrimPrefix(err.Error(), oauth.ErrUnavailable.Error()+": ")+"; try again shortly")
		return nil, false
	}
	if err != nil {
		why := strings.TrimPrefix(err.Error(), oauth.ErrInvalidToken.Error()+": ")
		challenge(`error="invalid_token"`, fmt.Sprintf("error_description=%q", headerSafe(why)))
		refuse(w, r, http.StatusUnauthorized, "invalid token", "Unauthorized: the bearer token is refused: "+why)
		return nil, false
	}
	if missing := caller.Missing(cfg.Scopes); len(missing) > 0 {
		why := fmt.Sprintf("the token lacks the scope %s that every request to this server needs", strings.Join(missing, " "))
		challenge(`error="insufficient_scope"`, scopeParam, fmt.Sprintf("error_description=%q", headerSafe(why)))
		refuse(w, r, http.StatusForbidden, "insufficient scope", "Forbidden: "+why+"; ask the authorization server for a token with it")
		return nil, false
	}
	// The SDK takes a request's TokenInfo only from its own middleware:
	// it is given the one made here, and the request it passes on kept.
	ti := caller.TokenInfo()
	var out *http.Request
	keep := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { out = r })
	auth.RequireBearerToken(func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return ti, nil },
		&auth.RequireBearerTokenOptions{AllowMissingExpiration: true, ClockSkew: cfg.ClockSkew})(keep).ServeHTTP(w, r)
	if out == nil { // refused by the SDK's own checks (its answer is sent)
		return nil, false
	}
	return out.WithContext(ident.NewContext(out.Context(), caller)), true
}

// streamUntilExpiry ends a GET of a caller whose token expires (an event
// stream: streamable HTTP's, or the SSE transport's and its session with
// it) when the token does, give or take the clock skew the token was
// checked with: a stream opened with a token must not outlive it. The
// client opens it again with a fresh token. A POST's answer is not cut:
// the call it carries was allowed, and its result is delivered. stop
// releases the timer.
func streamUntilExpiry(r *http.Request, skew time.Duration) (_ *http.Request, stop context.CancelFunc) {
	c := ident.FromContext(r.Context())
	if r.Method != http.MethodGet || c == nil || c.Expiry.IsZero() {
		return r, func() {}
	}
	ctx, cancel := context.WithDeadline(r.Context(), c.Expiry.Add(skew))
	return r.WithContext(ctx), cancel
}

// sseAudienceNote says, when the audience's path ends in /mcp, that OAuth
// clients of the SSE transport cannot get in: they take the resource of
// the metadata only if it covers the URL they connect to (the same
// origin, and a prefix of the path), and .../mcp does not cover .../sse.
// It is "" for an audience that does, such as the server's origin.
func sseAudienceNote(audience string) string {
	u, err := url.Parse(audience)
	if err != nil || !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/mcp") {
		return ""
	}
	origin := (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
	return fmt.Sprintf("OAuth clients of the SSE transport (/sse) cannot connect with the audience %s: they check that the resource covers the URL they connect to, and it does not cover /sse; to serve them too, set audience to the server's origin (%s) and have tokens issued for it", audience, origin)
}

// headerSafe makes s a quoted-string's content RFC 6750 allows in
// error_description: printable ASCII without " and \.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"' || r == '\\':
			return '\''
		case r < 0x20 || r > 0x7e:
			return '?'
		}
		return r
	}, s)
}

// prmURL is the URL of the Protected Resource Metadata of the resource
// audience: the well-known path inserted before the resource's path
// (RFC 9728 3.1).
func prmURL(audience string) string {
	u, err := url.Parse(audience)
	if err != nil {
		return audience
	}
	u.Path = prmPath + strings.TrimSuffix(u.Path, "/")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String()
}

// protectedResource is the Protected Resource Metadata document.
type protectedResource struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// servePRM serves the Protected Resource Metadata of the auth block in
// service, to any origin (it is public); 404 without an auth block.
func (h *HTTPServer) servePRM(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Allow-Methods", "GET, OPTIONS")
	w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Mcp-Protocol-Version")
	switch r.Method {
	case http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodGet, http.MethodHead:
	default:
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "Method Not Allowed: the protected resource metadata is read with GET", http.StatusMethodNotAllowed)
		return
	}
	v := h.verifier()
	if v == nil {
		http.Error(w, "Not Found: this server takes no OAuth tokens (its config has no auth block)", http.StatusNotFound)
		return
	}
	a := v.Config()
	doc := protectedResource{Resource: a.Audience, AuthorizationServers: a.AuthorizationServers, ScopesSupported: a.Scopes,
		BearerMethodsSupported: []string{"header"}, ResourceName: a.ResourceName}
	if len(doc.AuthorizationServers) == 0 && a.Issuer != "" {
		doc.AuthorizationServers = []string{a.Issuer}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "max-age=300")
	_ = json.NewEncoder(w).Encode(doc)
}

// sseUser is the subject of the verified token r carries; "" without one.
func sseUser(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}

// sseSameUser reports whether a message POSTed to an SSE session comes
// with a token of the subject that opened the session, as the SDK checks
// for streamable HTTP's sessions; it answers 403 when not.
func sseSameUser(w http.ResponseWriter, r *http.Request, sess *sseSession) bool {
	if sseUser(r) == sess.user {
		return true
	}
	refuse(w, r, http.StatusForbidden, "session of another user",
		"Forbidden: this session was opened with the token of another user (or without a token); open a session of your own with GET /sse")
	return false
}

// withTokenInfo gives a request POSTed to an SSE session the verified
// token's info, which the SDK gives its handlers (req.Extra.TokenInfo), as
// it does for streamable HTTP's requests.
func withTokenInfo(m jsonrpc.Message, r *http.Request) {
	if req, ok := m.(*jsonrpc.Request); ok {
		// The POST's caller, and its headers (the group of its path, for
		// scopes.go).
		req.Extra = &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}
	}
}
