package testoidc

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// serveDiscovery serves the OpenID discovery document, which is also the
// RFC 8414 metadata.
func (is *Issuer) serveDiscovery(w http.ResponseWriter, r *http.Request) {
	if is.isDown(w) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                is.URL,
		"jwks_uri":                              is.URL + "/jwks",
		"token_endpoint":                        is.URL + "/token",
		"introspection_endpoint":                is.URL + "/introspect",
		"authorization_endpoint":                is.URL + "/authorize",
		"registration_endpoint":                 is.URL + "/register",
		"grant_types_supported":                 []string{"client_credentials", "authorization_code", TokenExchangeGrant},
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256", "ES256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
		"code_challenge_methods_supported":      []string{"S256"},
	})
}

// serveJWKS serves the published keys.
func (is *Issuer) serveJWKS(w http.ResponseWriter, r *http.Request) {
	if is.isDown(w) {
		return
	}
	is.mu.Lock()
	is.jwksGets++
	var set jose.JSONWebKeySet
	for _, kid := range is.published {
		k := is.keys[kid]
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.signer.Public(), KeyID: kid, Algorithm: k.alg, Use: "sig"})
	}
	is.mu.Unlock()
	writeJSON(w, http.StatusOK, set)
}

// serveIntrospect answers RFC 7662 introspection of the opaque tokens.
func (is *Issuer) serveIntrospect(w http.ResponseWriter, r *http.Request) {
	is.mu.Lock()
	is.introspections++
	want := is.introAuth
	resp, ok := is.opaque[r.FormValue("token")]
	is.mu.Unlock()
	if want[0] != "" {
		if id, secret, _ := r.BasicAuth(); id != want[0] || secret != want[1] {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
			return
		}
	}
	if !ok {
		resp = map[string]any{"active": false}
	}
	writeJSON(w, http.StatusOK, resp)
}

// serveToken is the token endpoint: the client_credentials grant of a
// confidential client, the authorization_code grant (exchangeCode) and
// RFC 8693 token exchange (exchangeToken);
// client_secret_basic or client_secret_post, or only client_id for a
// public client. For client_credentials, resource (RFC 8707) sets aud and
// scope the scopes.
func (is *Issuer) serveToken(w http.ResponseWriter, r *http.Request) {
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.FormValue("client_id"), r.FormValue("client_secret")
	}
	is.mu.Lock()
	c := is.clients[id]
	is.mu.Unlock()
	if c == nil || c.secret != secret {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
		return
	}
	var extra map[string]any
	switch r.FormValue("grant_type") {
	case "client_credentials":
		if c.secret == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unauthorized_client", "error_description": "a public client has no credentials of its own"})
			return
		}
		extra = map[string]any{"client_id": id}
		if res := r.FormValue("resource"); res != "" {
			extra["aud"] = res
		}
		if sc := strings.TrimSpace(r.FormValue("scope")); sc != "" {
			extra["scope"] = sc
		}
	case TokenExchangeGrant:
		if c.secret == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unauthorized_client", "error_description": "a public client cannot exchange tokens"})
			return
		}
		var code, why string
		if extra, code, why = is.exchangeToken(r, id); code != "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": code, "error_description": why})
			return
		}
	case "authorization_code":
		var oauthErr string
		if extra, oauthErr = is.exchangeCode(r, id); oauthErr != "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": oauthErr})
			return
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
		return
	}
	sub, _ := extra["sub"].(string)
	if sub == "" {
		sub = id
	}
	tok := is.Mint(Token{Claims: is.Claims(sub, extra)})
	resp := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(time.Hour.Seconds()), "issued_token_type": AccessTokenType}
	if sc, ok := extra["scope"]; ok { // absent, not null, without one (RFC 6749 5.1)
		resp["scope"] = sc
	}
	writeJSON(w, http.StatusOK, resp)
}

// isDown answers 503 when the issuer is set down.
func (is *Issuer) isDown(w http.ResponseWriter) bool {
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.down {
		http.Error(w, "down for the test", http.StatusServiceUnavailable)
	}
	return is.down
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
