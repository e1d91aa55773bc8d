package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"golang.org/x/time/rate"
)

// newClient is the HTTP client of discovery, keys and introspection:
// bounded in time, with few redirects, none from https to http (keys
// fetched in the clear could be replaced on the way), and none for
// introspection, whose POST carries the token and toolhost's credentials
// (a 307 would send them on to wherever it points).
func newClient() *http.Client {
	return &http.Client{
		Timeout: FetchTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			switch {
			case via[0].Method == http.MethodPost:
				return fmt.Errorf("the introspection endpoint redirects to %s; set introspection_url to the endpoint itself", req.URL.Redacted())
			case via[0].URL.Scheme == "https" && req.URL.Scheme != "https":
				return fmt.Errorf("%s redirects to %s, which is not https", via[0].URL.Redacted(), req.URL.Redacted())
			case len(via) >= 3:
				return errors.New("more than 3 redirects")
			}
			return nil
		},
	}
}

// fetchJSON sends req and decodes its answer, of status 200 and at most
// MaxDocumentBytes, into dst.
func fetchJSON(client *http.Client, req *http.Request, dst any) error {
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", req.URL.Redacted(), resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxDocumentBytes+1))
	if err != nil {
		return fmt.Errorf("reading %s: %w", req.URL.Redacted(), err)
	}
	if len(body) > MaxDocumentBytes {
		return fmt.Errorf("%s answered more than %d bytes", req.URL.Redacted(), MaxDocumentBytes)
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return fmt.Errorf("%s answered no JSON document: %w", req.URL.Redacted(), err)
	}
	return nil
}

// keySet is the issuer's signing keys, fetched when first needed, again
// after KeysMaxAge, and again (rate-limited) when a token names a key it
// does not have.
type keySet struct {
	v               *Verifier
	issuer, jwksURL string
	state           atomic.Pointer[keyState]
	limiter         *rate.Limiter
	refreshing      atomic.Bool // a fetch of stale keys is under way
	mu              sync.Mutex  // one fetch at a time; guards the fields below
	nextTry         time.Time
	wait            time.Duration
	lastErr         error
	down            bool
}

// keyState is one fetch of the keys.
type keyState struct {
	keys    []jose.JSONWebKey
	fetched time.Time
}

func newKeySet(v *Verifier, issuer, jwksURL string) *keySet {
	return &keySet{v: v, issuer: issuer, jwksURL: jwksURL, limiter: rate.NewLimiter(rate.Every(RefetchEvery), RefetchBurst)}
}

// lookup returns the keys that may have signed a token naming kid (all
// of them when kid is empty).
func (ks *keySet) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	st := ks.state.Load()
	switch {
	case st == nil:
		if err := ks.refresh(ctx, st); err != nil {
			return nil, err
		}
		st = ks.state.Load()
	case ks.v.now().Sub(st.fetched) > KeysMaxAge && ks.refreshing.CompareAndSwap(false, true):
		// Stale keys serve on while one fetch in the background replaces
		// them: requests do not wait for an issuer slow to answer (up to
		// FetchTimeout), nor fail while it is away.
		go func() {
			defer ks.refreshing.Store(false)
			_ = ks.refresh(context.Background(), st)
		}()
	}
	if keys := st.match(kid); len(keys) > 0 {
		return keys, nil
	}
	// A key not seen yet: the issuer may have rotated its keys.
	if !ks.limiter.Allow() {
		return nil, fmt.Errorf("%w: the token names the key %q, which the issuer does not publish", ErrInvalidToken, kid)
	}
	if err := ks.refresh(ctx, st); err != nil {
		return nil, err
	}
	if keys := ks.state.Load().match(kid); len(keys) > 0 {
		return keys, nil
	}
	return nil, fmt.Errorf("%w: the token names the key %q, which the issuer does not publish", ErrInvalidToken, kid)
}

// match returns the keys of st named kid, or all when kid is empty.
func (st *keyState) match(kid string) []jose.JSONWebKey {
	if kid == "" {
		return st.keys
	}
	var out []jose.JSONWebKey
	for _, k := range st.keys {
		if k.KeyID == kid {
			out = append(out, k)
		}
	}
	return out
}

// refresh fetches the keys, unless another fetch replaced seen meanwhile
// or the last failure's wait is not over (then it returns that failure).
func (ks *keySet) refresh(ctx context.Context, seen *keyState) error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if cur := ks.state.Load(); cur != seen {
		return nil
	}
	now := ks.v.now()
	if now.Before(ks.nextTry) {
		return ks.lastErr
	}
	keys, err := ks.fetch(context.WithoutCancel(ctx))
	if err != nil {
		ks.wait = min(max(2*ks.wait, RetryFirst), RetryMax)
		ks.nextTry = now.Add(ks.wait)
		ks.lastErr = fmt.Errorf("%w: %v (toolhost tries again in %s)", ErrUnavailable, err, ks.wait)
		if !ks.down {
			ks.v.logger.Warn("cannot fetch the token issuer's keys: requests with tokens are refused with 503 until it answers", "error", err)
		}
		ks.down = true
		return ks.lastErr
	}
	if ks.down {
		ks.v.logger.Info("the token issuer's keys are fetched again", "keys", len(keys))
	}
	ks.down, ks.wait, ks.nextTry, ks.lastErr = false, 0, time.Time{}, nil
	ks.state.Store(&keyState{keys: keys, fetched: now})
	return nil
}

// fetch finds the JWKS (by discovery unless jwks_url is set) and fetches
// its public signing keys, at most MaxKeys.
func (ks *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	jwksURL := ks.jwksURL
	if jwksURL == "" {
		u, err := ks.discover(ctx)
		if err != nil {
			return nil, err
		}
		jwksURL = u
	}
	var set jose.JSONWebKeySet
	if err := getJSON(ctx, ks.v.client, jwksURL, &set); err != nil {
		return nil, fmt.Errorf("the keys (JWKS): %w", err)
	}
	var keys []jose.JSONWebKey
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		pub := k.Public() // a symmetric key has no public half: it is dropped
		if pub.Key == nil || !pub.Valid() {
			continue
		}
		if keys = append(keys, pub); len(keys) == MaxKeys {
			break
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("the keys at %s hold no public signing key", jwksURL)
	}
	return keys, nil
}

// discover reads the issuer's OpenID discovery document, or its RFC 8414
// authorization server metadata, for the URL of its keys.
func (ks *keySet) discover(ctx context.Context) (string, error) {
	doc, u, err := discover(ctx, ks.v.client, ks.issuer)
	if err != nil {
		return "", err
	}
	if !sameSchemeRule(doc.JWKSURI, u) {
		return "", fmt.Errorf("discovery: the document names no usable jwks_uri (%q)", doc.JWKSURI)
	}
	return doc.JWKSURI, nil
}

// metadata is what toolhost reads of an issuer's discovery document.
type metadata struct {
	Issuer        string `json:"issuer"`
	JWKSURI       string `json:"jwks_uri"`
	TokenEndpoint string `json:"token_endpoint"`
}

// discover fetches the discovery document of issuer (OpenID, or else RFC
// 8414) and checks that it names issuer; it returns it and issuer's URL.
func discover(ctx context.Context, client *http.Client, issuer string) (*metadata, *url.URL, error) {
	base := strings.TrimSuffix(issuer, "/")
	u, err := url.Parse(base)
	if err != nil {
		return nil, nil, err
	}
	var doc metadata
	err = getJSON(ctx, client, base+"/.well-known/openid-configuration", &doc)
	if err != nil {
		// RFC 8414 inserts the well-known path before the issuer's path.
		alt := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + u.Path
		if getJSON(ctx, client, alt, &doc) != nil {
			return nil, nil, fmt.Errorf("discovery: %w", err)
		}
	}
	if strings.TrimSuffix(doc.Issuer, "/") != base {
		return nil, nil, fmt.Errorf("discovery: the document names the issuer %q, not %q (the auth block's issuer must be the issuer's exact URL)", doc.Issuer, issuer)
	}
	return &doc, u, nil
}

// sameSchemeRule reports whether the endpoint s that issuer's discovery
// names is an absolute URL that is https, or http when the issuer is.
func sameSchemeRule(s string, issuer *url.URL) bool {
	j, err := url.Parse(s)
	return err == nil && j.Host != "" && (j.Scheme == "https" || (j.Scheme == "http" && issuer.Scheme == "http"))
}

// getJSON fetches the JSON document at u into dst with client.
func getJSON(ctx context.Context, client *http.Client, u string, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	return fetchJSON(client, req, dst)
}
