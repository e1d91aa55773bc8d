package host

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// signWith signs claims with an attacker's own key, with the extra
// header fields; embed puts the attacker's public key in the header (jwk).
func signWith(t *testing.T, claims map[string]any, extra map[jose.HeaderKey]any, embed bool) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	opts := &jose.SignerOptions{EmbedJWK: embed}
	for k, v := range extra {
		opts = opts.WithHeader(k, v)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// reheader replaces the header of a token the issuer signed with hdr,
// keeping its payload and signature (which no longer match).
func reheader(tok string, hdr map[string]any) string {
	_, rest, _ := strings.Cut(tok, ".")
	b, _ := json.Marshal(hdr)
	return base64.RawURLEncoding.EncodeToString(b) + "." + rest
}

// TestHTTPOAuthConfusion: tokens a hostile client shapes to pass for the
// issuer's (its own key in the header or at a URL it names, a key id
// that names the issuer's key over another signature, critical headers
// toolhost does not know, encrypted tokens, an issuer URL
// that differs by a slash) are refused; a token whose audience list
// names this server second, or that expired within the clock skew, is
// taken, as RFC 7519 and the auth block say.
func TestHTTPOAuthConfusion(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{}, authConfig(is, authAudience))
	now := time.Now()
	valid := is.Claims("ana", map[string]any{"scope": "mcp"})
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{"scope": "mcp"}
		for k, v := range extra {
			m[k] = v
		}
		return is.Claims("ana", m)
	}
	kid := is.Published()[0]
	good := is.Mint(testoidc.Token{Claims: valid})
	for _, tc := range []struct {
		name, token string
		status      int
	}{
		{"valid", good, 200},
		{"audience list, this server second", is.Mint(testoidc.Token{Claims: with(map[string]any{"aud": []string{"https://other.example.com", authAudience}})}), 200},
		{"expired within the skew", is.Mint(testoidc.Token{Claims: with(map[string]any{"exp": now.Add(-time.Second).Unix()})}), 200},
		{"expired past the skew", is.Mint(testoidc.Token{Claims: with(map[string]any{"exp": now.Add(-time.Minute).Unix()})}), 401},
		{"no exp", is.Mint(testoidc.Token{Claims: with(map[string]any{"exp": nil})}), 401},
		{"no sub", is.Mint(testoidc.Token{Claims: with(map[string]any{"sub": nil})}), 401},
		{"audience list without this server", is.Mint(testoidc.Token{Claims: with(map[string]any{"aud": []string{"https://other.example.com"}})}), 401},
		{"audience with a trailing slash", is.Mint(testoidc.Token{Claims: with(map[string]any{"aud": authAudience + "/"})}), 401},
		{"issuer with a trailing slash", is.Mint(testoidc.Token{Claims: with(map[string]any{"iss": is.URL + "/"})}), 401},
		{"attacker's key embedded (jwk)", signWith(t, valid, nil, true), 401},
		{"attacker's key embedded, issuer's kid", signWith(t, valid, map[jose.HeaderKey]any{"kid": kid}, true), 401},
		{"attacker's keys at jku", signWith(t, valid, map[jose.HeaderKey]any{"jku": "http://127.0.0.1:1/keys", "kid": kid}, false), 401},
		{"attacker's certificate at x5u", signWith(t, valid, map[jose.HeaderKey]any{"x5u": "http://127.0.0.1:1/cert"}, false), 401},
		{"kid path injection", signWith(t, valid, map[jose.HeaderKey]any{"kid": "../../../dev/null"}, false), 401},
		{"kid SQL injection", signWith(t, valid, map[jose.HeaderKey]any{"kid": "x' OR '1'='1"}, false), 401},
		{"unknown critical header", reheader(good, map[string]any{"alg": "RS256", "kid": kid, "crit": []string{"exp"}, "exp": 1}), 401},
		{"alg NONE upper case", reheader(good, map[string]any{"alg": "NONE", "kid": kid}), 401},
		{"alg none, signature kept", reheader(good, map[string]any{"alg": "none", "kid": kid}), 401},
		{"JWE shaped", "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a.b.c.d", 401},
		{"JSON serialization", `{"payload":"e30","signatures":[]}`, 401},
		{"two spaces in the header", good + " x", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := postInit(t, e, "/mcp", "Bearer "+tc.token)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
		})
	}
}

// authServer is a server block whose auth block trusts is, for
// authAudience, with no scopes of its own.
func authServer(is *testoidc.Issuer) string {
	return fmt.Sprintf(`
server {
  auth {
    issuer   = %q
    audience = %q
  }
}
`, is.URL, authAudience)
}

// newMeta is the _meta member of the params of a sessionless
// (2026-07-28) request.
const newMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
