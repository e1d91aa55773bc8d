package oauth

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/testoidc"
)

// TestVerifyStaleKeys: once the keys are older than KeysMaxAge, requests
// go on with them while one fetch in the background replaces them: a
// slow issuer does not hold requests up, and what it answers, late, is
// taken.
func TestVerifyStaleKeys(t *testing.T) {
	is := testoidc.Start(t, audience)
	gate := make(chan struct{})
	var open sync.Once
	release := func() { open.Do(func() { close(gate) }) }
	var slow atomic.Bool
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			<-gate
		}
		resp, err := http.Get(is.URL + "/jwks")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(jwks.Close)
	t.Cleanup(release) // before jwks.Close, which waits for its handlers
	v := New(&thcl.Auth{Issuer: is.URL, JWKSURL: jwks.URL, Audience: audience}, nil)
	clock := time.Now()
	v.now = func() time.Time { return clock }
	tok := is.Mint(testoidc.Token{Claims: is.Claims("ana", map[string]any{"exp": clock.Add(3 * KeysMaxAge).Unix()})})
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	slow.Store(true)
	clock = clock.Add(KeysMaxAge + time.Second)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("with stale keys, while the issuer is slow: %v", err)
	}
	kid := is.AddKey("ES256", true)
	release()
	deadline := time.Now().Add(FetchTimeout)
	for v.keys.state.Load().fetched != clock {
		if time.Now().After(deadline) {
			t.Fatal("the keys fetched in the background never replaced the stale ones")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if keys := v.keys.state.Load().match(kid); len(keys) == 0 {
		t.Fatalf("the key %s published meanwhile is not among the fetched ones", kid)
	}
}
