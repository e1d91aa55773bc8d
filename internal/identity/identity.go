// Package identity is who a request comes from: the Caller a verified
// bearer token names (its subject, scopes and claims), carried in a
// context from the HTTP layer that verifies the token to the code that
// filters lists, checks a tool's scopes and evaluates claim(). stdio and
// the framed bridge have no caller: FromContext returns nil there.
package identity

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Caller is the identity of a request, as its verified token says.
type Caller struct {
	// Subject is the token's subject (sub), or the introspection's.
	Subject string
	// Scopes are the scopes the token grants.
	Scopes []string
	// Claims are the token's claims as JSON decodes them (strings,
	// float64 numbers, bools, []any, map[string]any).
	Claims map[string]any
	// Expiry is when the token expires; zero when it does not say.
	Expiry time.Time
	// raw is the verified token and its exchange (see WithToken); nil
	// for a Caller made otherwise.
	raw *secret
}

// callerKey is the key of the Caller in TokenInfo.Extra and in contexts.
const callerKey = "toolhost.caller"

type ctxKey struct{}

// NewContext returns ctx carrying c; ctx itself when c is nil.
func NewContext(ctx context.Context, c *Caller) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, c)
}

// FromContext returns the Caller ctx carries, or nil when the request
// has none (stdio, the bridge, HTTP without auth).
func FromContext(ctx context.Context) *Caller {
	c, _ := ctx.Value(ctxKey{}).(*Caller)
	return c
}

// TokenInfo is c as the MCP SDK carries a request's token from the HTTP
// request to its handlers (RequestExtra.TokenInfo): scopes, expiry and
// subject, and c itself in Extra.
func (c *Caller) TokenInfo() *auth.TokenInfo {
	return &auth.TokenInfo{Scopes: c.Scopes, Expiration: c.Expiry, UserID: c.Subject, Extra: map[string]any{callerKey: c}}
}

// FromTokenInfo returns the Caller that TokenInfo made ti, or nil.
func FromTokenInfo(ti *auth.TokenInfo) *Caller {
	if ti == nil {
		return nil
	}
	c, _ := ti.Extra[callerKey].(*Caller)
	return c
}

// Missing returns the scopes of need that c does not have, in need's
// order; nil when it has them all. A nil Caller has none.
func (c *Caller) Missing(need []string) []string {
	var missing []string
	for _, s := range need {
		if c == nil || !slices.Contains(c.Scopes, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// Claim returns the claim name of c's token, and whether it has it.
func (c *Caller) Claim(name string) (any, bool) {
	if c == nil {
		return nil, false
	}
	v, ok := c.Claims[name]
	return v, ok
}

// ExchangeFunc trades subjectToken at the authorization server for a
// token for another audience (RFC 8693 token exchange), as the auth
// block's verifier does it.
type ExchangeFunc func(ctx context.Context, subjectToken string, want Exchange) (string, error)

// Exchange is what a backend asks of a token exchange: the audience,
// resource and scope of the token it needs.
type Exchange struct {
	Audience, Resource, Scope string
}

// secret holds the raw token of a Caller behind a pointer: fmt prints a
// pointer inside a struct as its address, so a Caller printed with %+v, or
// a TokenInfo that carries one, shows no token.
type secret struct {
	token    string
	exchange ExchangeFunc
}

// WithToken returns a copy of c that holds the raw token it was verified
// from and the way to exchange it. The token is unexported: it is never
// logged, encoded or sent anywhere, only given to exchange by Exchange.
func (c *Caller) WithToken(token string, exchange ExchangeFunc) *Caller {
	cc := *c
	cc.raw = &secret{token: token, exchange: exchange}
	return &cc
}

// ErrNoExchange is returned by Exchange for a Caller that holds no token,
// or whose verifier cannot exchange it.
var ErrNoExchange = errors.New("the caller's token cannot be exchanged")

// Exchange trades the caller's token for one for want.Audience and
// returns it; the caller's own token is not returned, and errors do not
// hold it.
func (c *Caller) Exchange(ctx context.Context, want Exchange) (string, error) {
	if c == nil || c.raw == nil || c.raw.token == "" || c.raw.exchange == nil {
		return "", ErrNoExchange
	}
	return c.raw.exchange(ctx, c.raw.token, want)
}
