package oauth

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/toolhost/toolhost/internal/identity"
)

// introCache keeps introspection answers by the token's SHA-256, at most
// MaxIntrospectionCache of them.
type introCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]introEntry
	// down is set while the endpoint cannot be reached, so that the log
	// says so once, not at every request.
	down atomic.Bool
	// flight makes the requests with one token share its introspection;
	// limit paces the introspections (IntrospectionRate).
	flight singleflight.Group
	limit  *rate.Limiter
}

// introEntry is one answer: the Caller of an active token, or the reason
// an inactive one was refused; until when it is kept.
type introEntry struct {
	caller *identity.Caller
	err    error
	until  time.Time
}

func newIntroCache() *introCache {
	return &introCache{entries: map[[sha256.Size]byte]introEntry{}, limit: rate.NewLimiter(IntrospectionRate, IntrospectionBurst)}
}

// get returns the answer kept for key, if it is still good at now.
func (c *introCache) get(key [sha256.Size]byte, now time.Time) (introEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if ok && now.After(e.until) {
		delete(c.entries, key)
		ok = false
	}
	return e, ok
}

// put keeps e for key; when full, expired answers go first, then any.
func (c *introCache) put(key [sha256.Size]byte, e introEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	makeRoom(c.entries, MaxIntrospectionCache, func(e introEntry) bool { return now.After(e.until) })
	c.entries[key] = e
}

// introspectToken checks an opaque token at the introspection endpoint
// (RFC 7662), or in the answers kept from it. Requests with the same token
// share one introspection, and introspections are paced.
func (v *Verifier) introspectToken(ctx context.Context, token string) (*identity.Caller, error) {
	key := tokenHash(token)
	if e, ok := v.introspect.get(key, v.now()); ok {
		return e.caller, e.err
	}
	// The introspection is shared: it does not end with the request that
	// started it.
	shared := context.WithoutCancel(ctx)
	ch := v.introspect.flight.DoChan(string(key[:]), func() (any, error) {
		if e, ok := v.introspect.get(key, v.now()); ok {
			return e, nil // answered while this request waited
		}
		return v.introspectNow(shared, key, token), nil
	})
	select {
	case r := <-ch:
		e := r.Val.(introEntry)
		return e.caller, e.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: the introspection did not answer before the request ended: %v", ErrUnavailable, context.Cause(ctx))
	}
}

// introspectNow asks the introspection endpoint about token, in its turn,
// and keeps the answer.
func (v *Verifier) introspectNow(ctx context.Context, key [sha256.Size]byte, token string) introEntry {
	wait, cancel := context.WithTimeout(ctx, IntrospectionWait)
	err := v.introspect.limit.Wait(wait)
	cancel()
	if err != nil {
		return introEntry{err: fmt.Errorf("%w: more new tokens arrive than the server introspects (%d a second); send the request again shortly", ErrUnavailable, IntrospectionRate)}
	}
	resp, err := v.askIntrospection(ctx, token)
	if err != nil {
		if !v.introspect.down.Swap(true) {
			v.logger.Warn("cannot reach the introspection endpoint: requests with opaque tokens are refused with 503 until it answers", "error", err)
		}
		return introEntry{err: fmt.Errorf("%w: introspection: %v", ErrUnavailable, err)}
	}
	if v.introspect.down.Swap(false) {
		v.logger.Info("the introspection endpoint answers again")
	}
	now := v.now()
	caller, err := v.introspected(resp, now)
	if err != nil {
		e := introEntry{err: err, until: now.Add(InactiveTTL)}
		v.introspect.put(key, e, now)
		return e
	}
	until := now.Add(IntrospectionTTL)
	if !caller.Expiry.IsZero() && caller.Expiry.Before(until) {
		until = caller.Expiry
	}
	e := introEntry{caller: caller, until: until}
	v.introspect.put(key, e, now)
	return e
}

// askIntrospection posts token to the introspection endpoint, with the
// client credentials when configured.
func (v *Verifier) askIntrospection(ctx context.Context, token string) (map[string]any, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.cfg.IntrospectionURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.cfg.IntrospectionClientID != "" {
		req.SetBasicAuth(url.QueryEscape(v.cfg.IntrospectionClientID), url.QueryEscape(v.cfg.IntrospectionClientSecret))
	}
	var resp map[string]any
	if err := fetchJSON(v.client, req, &resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// introspected checks an introspection answer: active, for this
// audience, from this issuer, within its times; and makes its Caller.
func (v *Verifier) introspected(resp map[string]any, now time.Time) (*identity.Caller, error) {
	if active, _ := resp["active"].(bool); !active {
		return nil, fmt.Errorf("%w: the issuer says the token is not active (expired, revoked or unknown)", ErrInvalidToken)
	}
	if !audienceHas(resp["aud"], v.cfg.Audience) {
		return nil, fmt.Errorf("%w: the token is not for this server: its audience (aud) does not name %s", ErrInvalidToken, v.cfg.Audience)
	}
	if iss, ok := resp["iss"].(string); ok && v.cfg.Issuer != "" && strings.TrimSuffix(iss, "/") != strings.TrimSuffix(v.cfg.Issuer, "/") {
		return nil, fmt.Errorf("%w: the token was issued by %q, not by %q", ErrInvalidToken, iss, v.cfg.Issuer)
	}
	skew := v.cfg.ClockSkew
	var expiry time.Time
	if exp, ok := resp["exp"].(float64); ok {
		expiry = time.Unix(int64(exp), 0)
		if now.Add(-skew).After(expiry) {
			return nil, fmt.Errorf("%w: the token expired at %s", ErrInvalidToken, expiry.UTC().Format(time.RFC3339))
		}
	}
	if nbf, ok := resp["nbf"].(float64); ok && now.Add(skew).Before(time.Unix(int64(nbf), 0)) {
		return nil, fmt.Errorf("%w: the token is not valid before %s", ErrInvalidToken, time.Unix(int64(nbf), 0).UTC().Format(time.RFC3339))
	}
	sub, _ := resp["sub"].(string)
	if sub == "" {
		sub, _ = resp["username"].(string)
	}
	if sub == "" {
		return nil, fmt.Errorf("%w: the introspection names no subject (sub) for the token", ErrInvalidToken)
	}
	scope, _ := resp["scope"].(string)
	return &identity.Caller{Subject: sub, Scopes: jwtScopes(claims{Scope: scope}), Claims: resp, Expiry: expiry}, nil
}

// audienceHas reports whether aud (a string or a list) names want.
func audienceHas(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		for _, e := range a {
			if s, ok := e.(string); ok && s == want {
				return true
			}
		}
	}
	return false
}
