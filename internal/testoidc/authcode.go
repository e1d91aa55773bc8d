package testoidc

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Approver is the subject of the tokens of the authorization code grant:
// the authorization endpoint approves every request as this user, with no
// page to log in on.
const Approver = "approver"

// maxRegistration caps the body of a registration request.
const maxRegistration = 64 << 10

// codeLifetime is how long an authorization code can be exchanged.
const codeLifetime = time.Minute

// client is a registered client: its secret ("" for a public client) and
// the redirect URIs of its authorization requests.
type client struct {
	secret    string
	redirects []string
}

// grant is an authorization code not yet exchanged.
type grant struct {
	client, redirect, challenge, resource, scope string
	expires                                      time.Time
}

// serveRegister is RFC 7591 dynamic client registration: a client with
// redirect URIs gets a client_id, and a secret unless it asks for the
// token_endpoint_auth_method none (a public client).
func (is *Issuer) serveRegister(w http.ResponseWriter, r *http.Request) {
	var md struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		ClientName   string   `json:"client_name"`
		Scope        string   `json:"scope"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRegistration)).Decode(&md); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_client_metadata", "error_description": err.Error()})
		return
	}
	for _, u := range md.RedirectURIs {
		if p, err := url.Parse(u); err != nil || !p.IsAbs() || p.Fragment != "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_redirect_uri", "error_description": "not an absolute URL without a fragment: " + u})
			return
		}
	}
	if len(md.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_redirect_uri", "error_description": "redirect_uris is empty"})
		return
	}
	c := &client{redirects: md.RedirectURIs}
	switch md.AuthMethod {
	case "none":
	case "", "client_secret_basic", "client_secret_post":
		c.secret = randomHex()
		if md.AuthMethod == "" {
			md.AuthMethod = "client_secret_basic"
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_client_metadata", "error_description": "unsupported token_endpoint_auth_method " + md.AuthMethod})
		return
	}
	id := "dyn-" + randomHex()[:16]
	is.mu.Lock()
	is.clients[id] = c
	is.mu.Unlock()
	resp := map[string]any{
		"client_id": id, "client_id_issued_at": time.Now().Unix(), "redirect_uris": md.RedirectURIs,
		"token_endpoint_auth_method": md.AuthMethod, "grant_types": []string{"authorization_code"}, "response_types": []string{"code"},
		"client_name": md.ClientName, "scope": md.Scope,
	}
	if c.secret != "" {
		resp["client_secret"], resp["client_secret_expires_at"] = c.secret, 0
	}
	writeJSON(w, http.StatusCreated, resp)
}

// serveAuthorize is the authorization endpoint of the code grant with
// PKCE (S256 only): it approves the request as Approver and redirects to
// the client's redirect URI with a code. A request with an unknown client
// or redirect URI gets 400 (never a redirect); other errors are
// redirected, as RFC 6749 4.1.2.1 says.
func (is *Issuer) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id, redirect := q.Get("client_id"), q.Get("redirect_uri")
	is.mu.Lock()
	c := is.clients[id]
	is.mu.Unlock()
	if c == nil || !slices.Contains(c.redirects, redirect) {
		http.Error(w, "unknown client_id, or a redirect_uri it did not register", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(redirect)
	answer := back.Query()
	if st := q.Get("state"); st != "" {
		answer.Set("state", st)
	}
	switch {
	case q.Get("response_type") != "code":
		answer.Set("error", "unsupported_response_type")
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		answer.Set("error", "invalid_request")
		answer.Set("error_description", "PKCE with code_challenge_method S256 is required")
	default:
		code := randomHex()
		is.mu.Lock()
		is.codes[code] = &grant{client: id, redirect: redirect, challenge: q.Get("code_challenge"),
			resource: q.Get("resource"), scope: q.Get("scope"), expires: time.Now().Add(codeLifetime)}
		is.mu.Unlock()
		answer.Set("code", code)
	}
	back.RawQuery = answer.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// exchangeCode is the token endpoint's authorization_code grant for the
// authenticated client id: the code is used up, and the redirect URI and
// the PKCE verifier must match its authorization request. It returns the
// token's extra claims, or the OAuth error.
func (is *Issuer) exchangeCode(r *http.Request, id string) (map[string]any, string) {
	is.mu.Lock()
	g := is.codes[r.FormValue("code")]
	delete(is.codes, r.FormValue("code"))
	is.mu.Unlock()
	sum := sha256.Sum256([]byte(r.FormValue("code_verifier")))
	switch {
	case g == nil || time.Now().After(g.expires) || g.client != id || g.redirect != r.FormValue("redirect_uri"):
		return nil, "invalid_grant"
	case b64(sum[:]) != g.challenge:
		return nil, "invalid_grant"
	}
	res := firstSet(g.resource, r.FormValue("resource"))
	if g.resource != "" && r.FormValue("resource") != "" && r.FormValue("resource") != g.resource {
		return nil, "invalid_target"
	}
	extra := map[string]any{"client_id": id, "sub": Approver}
	if res != "" {
		extra["aud"] = res
	}
	if g.scope != "" {
		extra["scope"] = g.scope
	}
	return extra, ""
}

// firstSet returns a, or b when a is empty.
func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// randomHex is 32 random hex digits.
func randomHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
