package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/testoidc"
)

// tokenEndpoint is an issuer on loopback whose token endpoint answers
// what a test sets, and records the forms it was posted.
type tokenEndpoint struct {
	srv    *httptest.Server
	mu     sync.Mutex
	status int
	answer string
	forms  []map[string]string
	client string
}

// startTokenEndpoint starts a tokenEndpoint that answers 200 and nothing
// until set.
func startTokenEndpoint(t *testing.T) *tokenEndpoint {
	te := &tokenEndpoint{status: http.StatusOK}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": te.srv.URL, "jwks_uri": te.srv.URL + "/jwks", "token_endpoint": te.srv.URL + "/token"})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		id, secret, _ := r.BasicAuth()
		te.mu.Lock()
		defer te.mu.Unlock()
		f := map[string]string{}
		for k := range r.PostForm {
			f[k] = r.PostForm.Get(k)
		}
		te.forms = append(te.forms, f)
		te.client = id + ":" + secret
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(te.status)
		fmt.Fprint(w, te.answer)
	})
	te.srv = httptest.NewServer(mux)
	t.Cleanup(te.srv.Close)
	return te
}

// set makes the token endpoint answer status and body.
func (te *tokenEndpoint) set(status int, body string) {
	te.mu.Lock()
	defer te.mu.Unlock()
	te.status, te.answer = status, body
}

// posts is how many exchanges were asked.
func (te *tokenEndpoint) posts() int {
	te.mu.Lock()
	defer te.mu.Unlock()
	return len(te.forms)
}

// TestExchange asks token exchanges of an issuer on loopback: the form is
// RFC 8693's, authenticated as the exchange client; answers are kept
// until shortly before they expire, and not when they do not say when;
// bad answers (too big, not Bearer, no token, refusals) are errors that
// hold neither the caller's token nor the client's secret.
func TestExchange(t *testing.T) {
	te := startTokenEndpoint(t)
	v := New(&thcl.Auth{Issuer: te.srv.URL, Audience: audience, ExchangeClientID: "toolhost", ExchangeClientSecret: "s3cret"}, nil)
	now := time.Now()
	v.now = func() time.Time { return now }
	want := identity.Exchange{Audience: "https://api.example.com", Scope: "read"}
	const subject = "caller-token-abc"
	ok := func(tok string, expires int) string {
		return fmt.Sprintf(`{"access_token":%q,"token_type":"Bearer","expires_in":%d,"issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}`, tok, expires)
	}

	t.Run("form and cache", func(t *testing.T) {
		te.set(200, ok("up-1", 300))
		for range 2 {
			if tok, err := v.exchange(context.Background(), subject, want); err != nil || tok != "up-1" {
				t.Fatalf("exchange: %q, %v", tok, err)
			}
		}
		if n := te.posts(); n != 1 {
			t.Fatalf("%d exchanges for two calls, want 1", n)
		}
		f := te.forms[0]
		if f["grant_type"] != grantTokenExchange || f["subject_token"] != subject || f["subject_token_type"] != tokenTypeAccess ||
			f["audience"] != want.Audience || f["scope"] != "read" || te.client != "toolhost:s3cret" {
			t.Fatalf("form %v, client %q", f, te.client)
		}
		if _, has := f["resource"]; has {
			t.Errorf("resource sent without one: %v", f)
		}
		te.set(200, ok("up-2", 300))
		if tok, _ := v.exchange(context.Background(), subject, identity.Exchange{Audience: want.Audience, Scope: "write"}); tok != "up-2" {
			t.Errorf("another scope got %q, want a token of its own", tok)
		}
		now = now.Add(300*time.Second - ExchangeEarly)
		te.set(200, ok("up-3", 300))
		if tok, _ := v.exchange(context.Background(), subject, want); tok != "up-3" {
			t.Errorf("near its expiry, the kept token is still used: %q", tok)
		}
	})

	t.Run("at once", func(t *testing.T) {
		te.set(200, ok("up-c", 300))
		before := te.posts()
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if tok, err := v.exchange(context.Background(), "caller-token-at-once", want); err != nil || tok != "up-c" {
					t.Errorf("exchange: %q, %v", tok, err)
				}
			})
		}
		wg.Wait()
		if n := te.posts() - before; n != 1 {
			t.Fatalf("%d exchanges for 20 calls at once with one token, want 1", n)
		}
	})
	t.Run("not kept", func(t *testing.T) {
		for _, body := range []string{`{"access_token":"short","token_type":"Bearer"}`, ok("short", 20)} {
			before := te.posts()
			te.set(200, body)
			for range 2 {
				if _, err := v.exchange(context.Background(), "other-caller", want); err != nil {
					t.Fatal(err)
				}
			}
			if n := te.posts() - before; n != 2 {
				t.Errorf("%s: %d exchanges for two calls, want 2 (nothing kept)", body, n)
			}
		}
	})

	t.Run("bad answers", func(t *testing.T) {
		for _, tc := range []struct {
			name, body, want string
			status           int
		}{
			{"refused", `{"error":"invalid_target","error_description":"no tokens for ` + subject + `"}`, "was refused by the issuer (HTTP 400): invalid_target: no tokens for [the caller's token]", 400},
			{"refused without a body", ``, "the issuer answered 403 Forbidden", 403},
			{"too big", `{"access_token":"` + strings.Repeat("a", MaxDocumentBytes) + `"}`, "answered more than", 200},
			{"not JSON", `<html>`, "not a JSON document", 200},
			{"no token", `{"token_type":"Bearer","expires_in":60}`, "holds no access_token", 200},
			{"token too long", ok(strings.Repeat("a", MaxTokenBytes+1), 60), "holds no access_token", 200},
			{"not Bearer", `{"access_token":"x","token_type":"N_A","expires_in":60}`, `a token of type "N_A"`, 200},
		} {
			t.Run(tc.name, func(t *testing.T) {
				te.set(tc.status, tc.body)
				_, err := v.exchange(context.Background(), subject, identity.Exchange{Audience: "https://bad.example.com"})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("exchange: %v; want an error saying %q", err, tc.want)
				}
				if strings.Contains(err.Error(), subject) || strings.Contains(err.Error(), "s3cret") {
					t.Fatalf("the error holds a secret: %v", err)
				}
			})
		}
	})

	t.Run("unreachable issuer", func(t *testing.T) {
		is := testoidc.Start(t, audience)
		down := New(&thcl.Auth{Issuer: is.URL, Audience: audience, ExchangeClientID: "toolhost", ExchangeClientSecret: "s3cret"}, nil)
		is.SetDown(true)
		if _, err := down.exchange(context.Background(), subject, want); err == nil || !strings.Contains(err.Error(), "cannot be asked of the issuer") {
			t.Fatalf("exchange: %v", err)
		}
	})

	t.Run("no exchange client", func(t *testing.T) {
		none := New(&thcl.Auth{Issuer: te.srv.URL, Audience: audience}, nil)
		if _, err := none.exchange(context.Background(), subject, want); err == nil || !strings.Contains(err.Error(), "cannot be exchanged") {
			t.Fatalf("exchange: %v", err)
		}
	})
}

// TestExchangeCacheBound: the kept tokens never pass MaxExchangeCache;
// expired ones go first.
func TestExchangeCacheBound(t *testing.T) {
	x := newExchange(&thcl.Auth{Issuer: "https://login.example.com", ExchangeClientID: "toolhost"})
	now := time.Now()
	for i := range MaxExchangeCache + 10 {
		x.put(exchangeKey{subject: tokenHash(fmt.Sprint(i))}, exchanged{token: "t", until: now.Add(time.Minute)}, now)
	}
	if n := len(x.entries); n != MaxExchangeCache {
		t.Fatalf("%d tokens kept, want %d", n, MaxExchangeCache)
	}
	x.put(exchangeKey{subject: tokenHash("expired")}, exchanged{token: "t", until: now.Add(-time.Second)}, now)
	if _, ok := x.get(exchangeKey{subject: tokenHash("expired")}, now); ok {
		t.Fatal("an expired token is kept")
	}
}
