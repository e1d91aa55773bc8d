package oauth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/testoidc"
)

const audience = "https://tools.example.com/mcp"

func TestVerifyJWT(t *testing.T) {
	is := testoidc.Start(t, audience)
	v := New(&thcl.Auth{Issuer: is.URL, Audience: audience, ClockSkew: 30 * time.Second}, nil)
	now := time.Now()
	ecKid := is.Published()[1]
	for _, tc := range []struct {
		name  string
		tok   testoidc.Token
		want  string // a part of the error; "" for a valid token
		scope []string
	}{
		{"valid RSA", testoidc.Token{Claims: is.Claims("ana", map[string]any{"scope": "read ops"})}, "", []string{"ops", "read"}},
		{"valid EC with scp", testoidc.Token{Kid: ecKid, Claims: is.Claims("ana", map[string]any{"scp": []string{"read"}})}, "", []string{"read"}},
		{"no kid", testoidc.Token{NoKid: true, Claims: is.Claims("ana", nil)}, "", nil},
		{"expired", testoidc.Token{Claims: is.Claims("ana", map[string]any{"exp": now.Add(-time.Minute).Unix()})}, "expired", nil},
		{"expired within the skew", testoidc.Token{Claims: is.Claims("ana", map[string]any{"exp": now.Add(-10 * time.Second).Unix()})}, "", nil},
		{"not yet valid", testoidc.Token{Claims: is.Claims("ana", map[string]any{"nbf": now.Add(time.Hour).Unix()})}, "not valid before", nil},
		{"issued in the future", testoidc.Token{Claims: is.Claims("ana", map[string]any{"iat": now.Add(time.Hour).Unix()})}, "issued in the future", nil},
		{"no exp", testoidc.Token{Claims: is.Claims("ana", map[string]any{"exp": nil})}, "no expiry", nil},
		{"no sub", testoidc.Token{Claims: is.Claims("", map[string]any{"sub": nil})}, "no subject", nil},
		{"wrong audience", testoidc.Token{Claims: is.Claims("ana", map[string]any{"aud": "https://other.example.com/mcp"})}, "audience", nil},
		{"no audience", testoidc.Token{Claims: is.Claims("ana", map[string]any{"aud": nil})}, "audience", nil},
		{"wrong issuer", testoidc.Token{Claims: is.Claims("ana", map[string]any{"iss": "https://evil.example.com"})}, "issued by", nil},
		{"alg none", testoidc.Token{Alg: "none", Claims: is.Claims("ana", nil)}, `"none"`, nil},
		{"HS256 keyed with the public key", testoidc.Token{Alg: "HS256", Claims: is.Claims("ana", nil)}, `"HS256"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := v.Verify(context.Background(), is.Mint(tc.tok))
			if tc.want != "" {
				if !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Verify: %v; want an invalid token saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Subject != "ana" || !slices.Equal(c.Scopes, tc.scope) || c.Expiry.IsZero() || c.Claims["iss"] != is.URL {
				t.Fatalf("caller %+v", c)
			}
		})
	}
}

func TestVerifyRotation(t *testing.T) {
	is := testoidc.Start(t, audience)
	v := New(&thcl.Auth{Issuer: is.URL, Audience: audience}, nil)
	if _, err := v.Verify(context.Background(), is.Mint(testoidc.Token{Claims: is.Claims("ana", nil)})); err != nil {
		t.Fatal(err)
	}
	kid := is.AddKey("ES256", false)
	tok := is.Mint(testoidc.Token{Kid: kid, Claims: is.Claims("ana", nil)})
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), kid) {
		t.Fatalf("a token of an unpublished key: %v", err)
	}
	is.Publish(kid)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("after the key is published: %v", err)
	}
	// Tokens naming unknown keys fetch the keys RefetchBurst times, then
	// no more within RefetchEvery.
	before := is.JWKSFetches()
	for range 5 {
		_, _ = v.Verify(context.Background(), is.Mint(testoidc.Token{Kid: is.AddKey("RS256", false), Claims: is.Claims("ana", nil)}))
	}
	if got := is.JWKSFetches() - before; got > RefetchBurst {
		t.Fatalf("unknown keys fetched the JWKS %d times; the limit is %d", got, RefetchBurst)
	}
}

func TestVerifyIssuerDown(t *testing.T) {
	is := testoidc.Start(t, audience)
	is.SetDown(true)
	v := New(&thcl.Auth{Issuer: is.URL, Audience: audience}, nil)
	clock := time.Now()
	v.now = func() time.Time { return clock }
	tok := is.Mint(testoidc.Token{Claims: is.Claims("ana", nil)})
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("issuer down: %v", err)
	}
	is.SetDown(false)
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "tries again") {
		t.Fatalf("within the retry wait: %v", err)
	}
	clock = clock.Add(RetryFirst + time.Millisecond)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("after the retry wait: %v", err)
	}
}

func TestVerifyIntrospection(t *testing.T) {
	is := testoidc.Start(t, audience)
	is.RequireIntrospectionAuth("toolhost", "s3cret")
	cfg := &thcl.Auth{Issuer: is.URL, Audience: audience, IntrospectionURL: is.URL + "/introspect", IntrospectionClientID: "toolhost", IntrospectionClientSecret: "s3cret"}
	v := New(cfg, nil)
	exp := float64(time.Now().Add(time.Hour).Unix())
	for _, tc := range []struct {
		name string
		resp map[string]any
		want string
	}{
		{"active", map[string]any{"sub": "ana", "aud": audience, "scope": "read", "exp": exp, "iss": is.URL}, ""},
		{"active, audience list", map[string]any{"sub": "ana", "aud": []any{"x", audience}, "scope": "read"}, ""},
		{"inactive", map[string]any{"active": false}, "not active"},
		{"wrong audience", map[string]any{"sub": "ana", "aud": "https://other.example.com", "scope": "read"}, "audience"},
		{"no audience", map[string]any{"sub": "ana", "scope": "read"}, "audience"},
		{"wrong issuer", map[string]any{"sub": "ana", "aud": audience, "iss": "https://evil.example.com", "scope": "read"}, "issued by"},
		{"expired", map[string]any{"sub": "ana", "aud": audience, "exp": float64(time.Now().Add(-time.Hour).Unix()), "scope": "read"}, "expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := is.Opaque(tc.resp)
			for range 2 { // the second answer comes from the cache
				c, err := v.Verify(context.Background(), tok)
				if tc.want != "" {
					if !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), tc.want) {
						t.Fatalf("Verify: %v; want an invalid token saying %q", err, tc.want)
					}
					continue
				}
				if err != nil || c.Subject != "ana" || !slices.Equal(c.Scopes, []string{"read"}) {
					t.Fatalf("Verify: %+v, %v", c, err)
				}
			}
		})
	}
	t.Run("wrong client secret", func(t *testing.T) {
		bad := *cfg
		bad.IntrospectionClientSecret = "wrong"
		_, err := New(&bad, nil).Verify(context.Background(), is.Opaque(map[string]any{"sub": "ana", "aud": audience}))
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "401") {
			t.Fatalf("Verify: %v", err)
		}
	})
	t.Run("too long", func(t *testing.T) {
		_, err := v.Verify(context.Background(), strings.Repeat("a", MaxTokenBytes+1))
		if !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("Verify: %v", err)
		}
	})
}

func TestIntroCacheBound(t *testing.T) {
	c := newIntroCache()
	now := time.Now()
	for i := range MaxIntrospectionCache + 10 {
		c.put(tokenHash(strings.Repeat("x", i)), introEntry{until: now.Add(time.Minute)}, now)
	}
	if n := len(c.entries); n > MaxIntrospectionCache {
		t.Fatalf("%d entries kept; the cap is %d", n, MaxIntrospectionCache)
	}
}

// TestIntrospectionShared: requests arriving at once with one new opaque
// token cause one introspection between them.
func TestIntrospectionShared(t *testing.T) {
	is := testoidc.Start(t, audience)
	v := New(&thcl.Auth{Issuer: is.URL, Audience: audience, IntrospectionURL: is.URL + "/introspect"}, nil)
	tok := is.Opaque(map[string]any{"sub": "ana", "aud": audience})
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			if c, err := v.Verify(context.Background(), tok); err != nil || c.Subject != "ana" {
				errs <- fmt.Errorf("Verify: %+v, %v", c, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := is.Introspections(); n != 1 {
		t.Errorf("%d introspections for one token, want 1", n)
	}
}

// TestIntrospectionPaced: new tokens beyond the pace are refused as
// unavailable (503) without reaching the issuer; known ones still pass
// from the cache.
func TestIntrospectionPaced(t *testing.T) {
	is := testoidc.Start(t, audience)
	v := New(&thcl.Auth{Issuer: is.URL, Audience: audience, IntrospectionURL: is.URL + "/introspect"}, nil)
	v.introspect.limit = rate.NewLimiter(rate.Every(time.Hour), 2)
	var toks []string
	for range 3 {
		toks = append(toks, is.Opaque(map[string]any{"sub": "ana", "aud": audience}))
	}
	for _, tok := range toks[:2] {
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatalf("Verify within the pace: %v", err)
		}
	}
	if _, err := v.Verify(context.Background(), toks[2]); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "send the request again shortly") {
		t.Fatalf("Verify over the pace: %v, want unavailable", err)
	}
	if n := is.Introspections(); n != 2 {
		t.Errorf("%d introspections, want 2", n)
	}
	if _, err := v.Verify(context.Background(), toks[0]); err != nil {
		t.Errorf("a known token over the pace: %v", err)
	}
}
