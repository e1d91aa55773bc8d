package identity

import (
	"context"
	"slices"
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
