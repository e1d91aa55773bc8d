// Package testoidc is a small OAuth 2.1 / OpenID issuer on loopback for
// tests: discovery (OpenID and RFC 8414), a JWKS of real RSA and EC keys
// that can rotate, tokens minted with any claims, key and algorithm
// (attacks included: alg none, HS256 keyed with a public key), RFC 7662
// introspection of opaque tokens, and a token endpoint of the
// client_credentials grant and of the authorization code grant with PKCE
// (an authorization endpoint that approves at once, and RFC 7591 dynamic
// client registration), as MCP clients' OAuth flows use them, and RFC
// 8693 token exchange.
package testoidc

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Issuer is a running test issuer. Its methods are safe for concurrent use.
type Issuer struct {
	// URL is the issuer's URL (http://127.0.0.1:PORT), as tokens' iss.
	URL string
	// Audience is the aud of the tokens Claims and the token endpoint make
	// when not told otherwise; once the issuer serves, change it with
	// SetAudience.
	Audience string

	srv *httptest.Server
	mu  sync.Mutex
	// keys are every key made, by kid; published those in the JWKS, in
	// order; current the kid Mint signs with by default.
	keys      map[string]*key
	published []string
	current   string
	next      int
	opaque    map[string]map[string]any
	clients   map[string]*client
	codes     map[string]*grant
	down      bool
	jwksGets  int
	// introspections counts the requests to the introspection endpoint.
	introspections int
	introAuth      [2]string
	// exchangeAud are the audiences tokens are exchanged for; exchanges
	// counts the exchanges granted.
	exchangeAud map[string]bool
	exchanges   int
}

// key is a signing key.
type key struct {
	kid    string
	alg    string
	signer crypto.Signer
}

// Start starts an issuer on loopback with one RSA key (the current one)
// and one EC key published; it stops when t ends. audience is the default
// aud of its tokens.
func Start(t testing.TB, audience string) *Issuer {
	t.Helper()
	is := &Issuer{Audience: audience, keys: map[string]*key{}, opaque: map[string]map[string]any{}, clients: map[string]*client{}, codes: map[string]*grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", is.serveDiscovery)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", is.serveDiscovery)
	mux.HandleFunc("GET /jwks", is.serveJWKS)
	mux.HandleFunc("POST /introspect", is.serveIntrospect)
	mux.HandleFunc("POST /token", is.serveToken)
	mux.HandleFunc("POST /register", is.serveRegister)
	mux.HandleFunc("GET /authorize", is.serveAuthorize)
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	is.URL = is.srv.URL
	is.current = is.AddKey("RS256", true)
	is.AddKey("ES256", true)
	return is
}

// AddKey makes a new key for alg (RS256 or ES256), published in the JWKS
// or not yet, and returns its kid.
func (is *Issuer) AddKey(alg string, publish bool) string {
	var signer crypto.Signer
	var err error
	switch alg {
	case "RS256":
		signer, err = rsa.GenerateKey(rand.Reader, 2048)
	case "ES256":
		signer, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		panic("testoidc: AddKey takes RS256 or ES256, not " + alg)
	}
	if err != nil {
		panic(err)
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	is.next++
	kid := fmt.Sprintf("%s-%d", map[string]string{"RS256": "rsa", "ES256": "ec"}[alg], is.next)
	is.keys[kid] = &key{kid: kid, alg: alg, signer: signer}
	if publish {
		is.published = append(is.published, kid)
	}
	return kid
}

// Publish adds the key kid to the JWKS.
func (is *Issuer) Publish(kid string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.published = append(is.published, kid)
}

// Rotate makes a new key of alg, publishes it, makes it the one Mint
// signs with by default, and withdraws the one before; it returns the new
// kid.
func (is *Issuer) Rotate(alg string) string {
	kid := is.AddKey(alg, true)
	is.mu.Lock()
	defer is.mu.Unlock()
	old := is.current
	is.current = kid
	for i, k := range is.published {
		if k == old {
			is.published = append(is.published[:i], is.published[i+1:]...)
			break
		}
	}
	return kid
}

// Published returns the kids of the JWKS, in order (Start publishes an
// RSA key, then an EC key).
func (is *Issuer) Published() []string {
	is.mu.Lock()
	defer is.mu.Unlock()
	return slices.Clone(is.published)
}

// SetDown makes discovery and the JWKS answer 503 (down) or serve again.
func (is *Issuer) SetDown(down bool) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.down = down
}

// JWKSFetches is how many times the JWKS was fetched.
func (is *Issuer) JWKSFetches() int {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.jwksGets
}

// Introspections is how many requests the introspection endpoint had.
func (is *Issuer) Introspections() int {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.introspections
}

// SetAudience sets the default aud of the tokens, for a resource whose
// URL is known only after the issuer started.
func (is *Issuer) SetAudience(aud string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.Audience = aud
}

// AddClient registers a confidential client of the token endpoint, for
// the client_credentials grant.
func (is *Issuer) AddClient(id, secret string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.clients[id] = &client{secret: secret}
}

// RequireIntrospectionAuth makes the introspection endpoint require HTTP
// Basic authentication with id and secret.
func (is *Issuer) RequireIntrospectionAuth(id, secret string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.introAuth = [2]string{id, secret}
}

// Claims returns the claims of a valid token for sub: iss, aud (the
// default audience), sub, iat, and exp an hour away, with extra added
// (a nil value removes a claim).
func (is *Issuer) Claims(sub string, extra map[string]any) map[string]any {
	now := time.Now()
	is.mu.Lock()
	aud := is.Audience
	is.mu.Unlock()
	c := map[string]any{"iss": is.URL, "aud": aud, "sub": sub, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	for k, v := range extra {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// Token says how Mint makes a token.
type Token struct {
	// Claims are the payload.
	Claims map[string]any
	// Kid is the key that signs (the current one when empty); it is named
	// in the header unless NoKid.
	Kid   string
	NoKid bool
	// Alg is the algorithm: the key's own when empty; "none" for an
	// unsigned token; "HS256" for an HMAC keyed with the key's public
	// key (PEM), the algorithm-confusion attack.
	Alg string
}

// Mint returns a compact JWT as tok says.
func (is *Issuer) Mint(tok Token) string {
	is.mu.Lock()
	kid := tok.Kid
	if kid == "" {
		kid = is.current
	}
	k := is.keys[kid]
	is.mu.Unlock()
	if k == nil {
		panic("testoidc: no key " + kid)
	}
	alg := tok.Alg
	if alg == "" {
		alg = k.alg
	}
	hdr := map[string]any{"alg": alg, "typ": "at+jwt"}
	if !tok.NoKid {
		hdr["kid"] = kid
	}
	payload, err := json.Marshal(tok.Claims)
	if err != nil {
		panic(err)
	}
	switch alg {
	case "none":
		return seg(hdr) + "." + b64(payload) + "."
	case "HS256":
		der, _ := x509.MarshalPKIXPublicKey(k.signer.Public())
		pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
		input := seg(hdr) + "." + b64(payload)
		mac := hmac.New(sha256.New, pub)
		mac.Write([]byte(input))
		return input + "." + b64(mac.Sum(nil))
	}
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
	if !tok.NoKid {
		opts = opts.WithHeader("kid", kid)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: k.signer}, opts)
	if err != nil {
		panic(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		panic(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		panic(err)
	}
	return s
}

// Opaque returns a new opaque token whose introspection answers resp
// (active true added unless resp says otherwise).
func (is *Issuer) Opaque(resp map[string]any) string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	tok := hex.EncodeToString(b)
	r := map[string]any{"active": true}
	for k, v := range resp {
		r[k] = v
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	is.opaque[tok] = r
	return tok
}

func seg(v any) string {
	b, _ := json.Marshal(v)
	return b64(b)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
