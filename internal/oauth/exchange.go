package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/identity"
)

// Limits of token exchange (RFC 8693).
const (
	// MaxExchangeCache caps the exchanged tokens kept, by the caller's
	// token's SHA-256 and what was asked (audience, resource, scope).
	MaxExchangeCache = 10000
	// ExchangeEarly is how long before its expiry (expires_in) an
	// exchanged token stops being used and a new one is asked for; a
	// token whose answer has no expires_in is not kept.
	ExchangeEarly = 30 * time.Second
	// maxErrorText caps the issuer's error_description quoted in errors.
	maxErrorText = 200
)

// RFC 8693's names of the grant and of the token types.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeAccess    = "urn:ietf:params:oauth:token-type:access_token"
)

// exchangeState is the token exchange of a Verifier: the issuer's token
// endpoint once discovered, and the exchanged tokens kept.
type exchangeState struct {
	issuer, clientID, clientSecret string
	// flight makes the calls that need the same exchange at once share
	// one request to the issuer.
	flight   singleflight.Group
	mu       sync.Mutex // guards the fields below
	endpoint string
	entries  map[exchangeKey]exchanged
}

// exchangeKey is what an exchanged token is kept by: never the caller's
// token itself, its hash.
type exchangeKey struct {
	subject [sha256.Size]byte
	want    identity.Exchange
}

// exchanged is a token the issuer gave, and until when it is used.
type exchanged struct {
	token string
	until time.Time
}

// newExchange returns the token exchange of the auth block a, or nil when
// it cannot exchange (no issuer, or no client credentials; the config
// refuses a token_exchange block then).
func newExchange(a *thcl.Auth) *exchangeState {
	id, secret := a.ExchangeClient()
	if a.Issuer == "" || id == "" {
		return nil
	}
	return &exchangeState{issuer: a.Issuer, clientID: id, clientSecret: secret, entries: map[exchangeKey]exchanged{}}
}

// exchange trades the caller's token subject for a token for want at the
// issuer's token endpoint (RFC 8693), or returns the one kept from an
// earlier exchange of the same. Its errors never hold either token.
func (v *Verifier) exchange(ctx context.Context, subject string, want identity.Exchange) (string, error) {
	x := v.exch
	if x == nil {
		return "", fmt.Errorf("%w: the auth block has no issuer and client credentials to exchange tokens with", identity.ErrNoExchange)
	}
	key := exchangeKey{subject: tokenHash(subject), want: want}
	if tok, ok := x.get(key, v.now()); ok {
		return tok, nil
	}
	// Calls arriving at once with the same token share one exchange,
	// which does not end with the call that started it.
	shared := context.WithoutCancel(ctx)
	ch := x.flight.DoChan(fmt.Sprintf("%x %q %q %q", key.subject, want.Audience, want.Resource, want.Scope), func() (any, error) {
		if tok, ok := x.get(key, v.now()); ok {
			return tok, nil
		}
		return v.exchangeNow(shared, key, subject, want)
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return "", r.Err
		}
		return r.Val.(string), nil
	case <-ctx.Done():
		return "", fmt.Errorf("the token exchange with the issuer %s did not answer in time: %w", x.issuer, context.Cause(ctx))
	}
}

// exchangeNow asks the issuer for the exchange and keeps its answer.
func (v *Verifier) exchangeNow(ctx context.Context, key exchangeKey, subject string, want identity.Exchange) (string, error) {
	x := v.exch
	endpoint, err := x.tokenEndpoint(ctx, v.client)
	if err != nil {
		return "", fmt.Errorf("the token exchange cannot be asked of the issuer %s: %v", x.issuer, err)
	}
	ans, err := x.ask(ctx, v.client, endpoint, subject, want)
	if err != nil {
		return "", err
	}
	if ans.ExpiresIn > 0 {
		now := v.now()
		x.put(key, exchanged{token: ans.AccessToken, until: now.Add(time.Duration(ans.ExpiresIn)*time.Second - ExchangeEarly)}, now)
	}
	return ans.AccessToken, nil
}

// tokenEndpoint returns the issuer's token endpoint, discovered once.
func (x *exchangeState) tokenEndpoint(ctx context.Context, client *http.Client) (string, error) {
	x.mu.Lock()
	endpoint := x.endpoint
	x.mu.Unlock()
	if endpoint != "" {
		return endpoint, nil
	}
	doc, u, err := discover(ctx, client, x.issuer)
	if err != nil {
		return "", err
	}
	if !sameSchemeRule(doc.TokenEndpoint, u) {
		return "", fmt.Errorf("its discovery document names no usable token_endpoint (%q)", doc.TokenEndpoint)
	}
	x.mu.Lock()
	x.endpoint = doc.TokenEndpoint
	x.mu.Unlock()
	return doc.TokenEndpoint, nil
}

// exchangeAnswer is the token endpoint's answer (RFC 8693 2.2), a success's
// fields and an error's.
type exchangeAnswer struct {
	AccessToken string  `json:"access_token"`
	TokenType   string  `json:"token_type"`
	ExpiresIn   float64 `json:"expires_in"`
	Error       string  `json:"error"`
	Description string  `json:"error_description"`
}

// ask posts the exchange to endpoint, authenticated with the client's
// credentials (HTTP Basic, RFC 6749 2.3.1), and checks the answer.
func (x *exchangeState) ask(ctx context.Context, client *http.Client, endpoint, subject string, want identity.Exchange) (*exchangeAnswer, error) {
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"subject_token":        {subject},
		"subject_token_type":   {tokenTypeAccess},
		"requested_token_type": {tokenTypeAccess},
	}
	for name, v := range map[string]string{"audience": want.Audience, "resource": want.Resource, "scope": want.Scope} {
		if v != "" {
			form.Set(name, v)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(x.clientID), url.QueryEscape(x.clientSecret))
	what := fmt.Sprintf("the token exchange for the audience %q at %s", want.Audience, endpoint)
	resp, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // its message would repeat the URL
		}
		return nil, fmt.Errorf("%s failed: the issuer cannot be reached (%v); try again shortly", what, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxDocumentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s failed: the answer could not be read (%v)", what, err)
	}
	if len(body) > MaxDocumentBytes {
		return nil, fmt.Errorf("%s failed: the issuer answered more than %d bytes", what, MaxDocumentBytes)
	}
	var ans exchangeAnswer
	jsonErr := json.Unmarshal(body, &ans)
	switch {
	case resp.StatusCode != http.StatusOK && ans.Error != "":
		msg := fmt.Sprintf("%s was refused by the issuer (HTTP %d): %s", what, resp.StatusCode, quoteIssuer(ans.Error, subject))
		if ans.Description != "" {
			msg += ": " + quoteIssuer(ans.Description, subject)
		}
		return nil, errors.New(msg + "; the issuer must allow toolhost's client to exchange the caller's token for this audience and scope")
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s failed: the issuer answered %s", what, resp.Status)
	case jsonErr != nil:
		return nil, fmt.Errorf("%s failed: the issuer's answer is not a JSON document", what)
	case ans.AccessToken == "" || len(ans.AccessToken) > MaxTokenBytes || strings.ContainsAny(ans.AccessToken, " \t\r\n"):
		return nil, fmt.Errorf("%s failed: the issuer's answer holds no access_token of at most %d bytes", what, MaxTokenBytes)
	case !strings.EqualFold(ans.TokenType, "Bearer"):
		return nil, fmt.Errorf("%s failed: the issuer gave a token of type %q, not a Bearer token", what, quoteIssuer(ans.TokenType, subject))
	}
	return &ans, nil
}

// quoteIssuer is text of the issuer's answer as an error may quote it:
// without the caller's token subject, printable, and at most maxErrorText
// bytes.
func quoteIssuer(text, subject string) string {
	text = strings.ReplaceAll(text, subject, "[the caller's token]")
	text = headerSafe(text)
	if len(text) > maxErrorText {
		text = text[:maxErrorText] + "..."
	}
	return text
}

// headerSafe replaces the control characters of s.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// get returns the token kept for key, if it is still good at now.
func (x *exchangeState) get(key exchangeKey, now time.Time) (string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e, ok := x.entries[key]
	if ok && !now.Before(e.until) {
		delete(x.entries, key)
		return "", false
	}
	return e.token, ok
}

// put keeps e for key; when full, expired tokens go first, then any.
func (x *exchangeState) put(key exchangeKey, e exchanged, now time.Time) {
	if !now.Before(e.until) {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	makeRoom(x.entries, MaxExchangeCache, func(e exchanged) bool { return !now.Before(e.until) })
	x.entries[key] = e
}

// makeRoom deletes entries of m until it holds fewer than max: the
// expired ones first, then any.
func makeRoom[K comparable, V any](m map[K]V, max int, expired func(V) bool) {
	if len(m) < max {
		return
	}
	for k, v := range m {
		if expired(v) {
			delete(m, k)
		}
	}
	for k := range m {
		if len(m) < max {
			break
		}
		delete(m, k)
	}
}
