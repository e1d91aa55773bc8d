package identity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCaller(t *testing.T) {
	c := &Caller{Subject: "ana", Scopes: []string{"read", "ops"}, Claims: map[string]any{"email": "ana@example.com"}}
	ctx := NewContext(context.Background(), c)
	if FromContext(ctx) != c || FromContext(context.Background()) != nil {
		t.Fatal("the context does not carry the caller")
	}
	if got := FromTokenInfo(c.TokenInfo()); got != c {
		t.Fatalf("FromTokenInfo(TokenInfo()) = %v", got)
	}
	if FromTokenInfo(nil) != nil {
		t.Fatal("FromTokenInfo(nil) is not nil")
	}
	for _, tc := range []struct {
		name       string
		c          *Caller
		need, want []string
	}{
		{"all there", c, []string{"ops", "read"}, nil},
		{"one missing", c, []string{"read", "admin"}, []string{"admin"}},
		{"no caller", nil, []string{"read"}, []string{"read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Missing(tc.need); !slices.Equal(got, tc.want) {
				t.Fatalf("Missing(%v) = %v, want %v", tc.need, got, tc.want)
			}
		})
	}
	if v, ok := c.Claim("email"); !ok || v != "ana@example.com" {
		t.Fatalf("Claim(email) = %v, %v", v, ok)
	}
	if _, ok := (*Caller)(nil).Claim("email"); ok {
		t.Fatal("a nil caller has a claim")
	}
}

// TestCallerToken: the token a Caller holds reaches only its exchange: it
// shows in no print, JSON encoding or TokenInfo of the Caller, and a
// Caller without one cannot exchange.
func TestCallerToken(t *testing.T) {
	const token = "raw-token-of-ana"
	var got string
	c := (&Caller{Subject: "ana"}).WithToken(token, func(_ context.Context, subject string, want Exchange) (string, error) {
		got = subject
		return "for-" + want.Audience, nil
	})
	tok, err := c.Exchange(context.Background(), Exchange{Audience: "api"})
	if err != nil || tok != "for-api" || got != token {
		t.Fatalf("Exchange: %q, %v; the exchange got %q", tok, err, got)
	}
	js, _ := json.Marshal(c)
	for _, s := range []string{fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", *c), fmt.Sprintf("%+v", c.TokenInfo()), string(js)} {
		if strings.Contains(s, token) {
			t.Errorf("the token shows: %s", s)
		}
	}
	for _, c := range []*Caller{nil, {Subject: "bob"}, (&Caller{}).WithToken(token, nil)} {
		if _, err := c.Exchange(context.Background(), Exchange{Audience: "api"}); !errors.Is(err, ErrNoExchange) {
			t.Errorf("Exchange of %+v: %v, want ErrNoExchange", c, err)
		}
	}
}
