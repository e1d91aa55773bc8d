package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	thcl "github.com/toolhost/toolhost/hcl"
)

// TestIntrospectionRedirect: an introspection endpoint that redirects
// (307 keeps the POST and its body) is not followed: the token and the
// client's credentials stay with it, and the check is unavailable.
func TestIntrospectionRedirect(t *testing.T) {
	var reached atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"active":true,"sub":"eve","aud":"` + audience + `"}`))
	}))
	t.Cleanup(elsewhere.Close)
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/introspect", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(endpoint.Close)
	v := New(&thcl.Auth{IntrospectionURL: endpoint.URL + "/introspect", Audience: audience,
		IntrospectionClientID: "toolhost", IntrospectionClientSecret: "s3cret"}, nil)
	_, err := v.Verify(context.Background(), "opaque-token")
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Verify: %v, want the endpoint unavailable", err)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the redirect's target got the token %d times", n)
	}
}
