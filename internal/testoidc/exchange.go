package testoidc

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// TokenExchangeGrant is the grant_type of RFC 8693 token exchange, and
// AccessTokenType the token type of its subject and issued tokens.
const (
	TokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
	AccessTokenType    = "urn:ietf:params:oauth:token-type:access_token"
)

// AllowExchange lets confidential clients exchange the tokens this issuer
// issued for tokens for audience; other audiences are refused with
// invalid_target.
func (is *Issuer) AllowExchange(audience string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.exchangeAud == nil {
		is.exchangeAud = map[string]bool{}
	}
	is.exchangeAud[audience] = true
}

// Exchanges is how many token exchanges the issuer granted.
func (is *Issuer) Exchanges() int {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.exchanges
}

// exchangeToken checks a token exchange request of the client id: the
// subject token is an access token this issuer signed (or an active
// opaque one), unexpired, and the audience (or resource) is allowed. It
// returns the claims of the token to issue (sub the subject's, aud the
// audience, scope as asked, act the client), or an OAuth error code and
// description.
func (is *Issuer) exchangeToken(r *http.Request, id string) (map[string]any, string, string) {
	if tt := r.FormValue("subject_token_type"); tt != AccessTokenType {
		return nil, "invalid_request", "subject_token_type must be " + AccessTokenType + ", not " + tt
	}
	sub, ok := is.subjectOf(r.FormValue("subject_token"))
	if !ok {
		return nil, "invalid_grant", "the subject token is not a valid token of this issuer"
	}
	aud := r.FormValue("audience")
	if aud == "" {
		aud = r.FormValue("resource")
	}
	is.mu.Lock()
	allowed := is.exchangeAud[aud]
	if allowed {
		is.exchanges++
	}
	is.mu.Unlock()
	if !allowed {
		return nil, "invalid_target", "tokens are not exchanged for the audience " + aud
	}
	extra := map[string]any{"sub": sub, "aud": aud, "act": map[string]any{"sub": id}, "client_id": id}
	if sc := strings.TrimSpace(r.FormValue("scope")); sc != "" {
		extra["scope"] = sc
	}
	return extra, "", ""
}

// subjectOf returns the subject of token if this issuer issued it and it
// is valid now.
func (is *Issuer) subjectOf(token string) (string, bool) {
	is.mu.Lock()
	opaque, isOpaque := is.opaque[token]
	keys := make([]*key, 0, len(is.keys))
	for _, kid := range is.published {
		keys = append(keys, is.keys[kid])
	}
	is.mu.Unlock()
	if isOpaque {
		sub, _ := opaque["sub"].(string)
		active, _ := opaque["active"].(bool)
		return sub, active && sub != ""
	}
	jws, err := jose.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256, jose.ES256})
	if err != nil {
		return "", false
	}
	for _, k := range keys {
		payload, err := jws.Verify(k.signer.Public())
		if err != nil {
			continue
		}
		var c struct {
			Iss string  `json:"iss"`
			Sub string  `json:"sub"`
			Exp float64 `json:"exp"`
		}
		if json.Unmarshal(payload, &c) != nil || c.Iss != is.URL || c.Sub == "" || time.Now().Unix() > int64(c.Exp) {
			return "", false
		}
		return c.Sub, true
	}
	return "", false
}
