// Package oauth verifies the bearer tokens of HTTP requests for an OAuth
// 2.1 resource server, as the auth block of the server block configures
// it: JWTs against the issuer's keys (found by OpenID discovery from the
// issuer, or at jwks_url), cached and fetched again when a token names a
// key not seen yet (key rotation), and opaque tokens through RFC 7662
// introspection. A token that passes becomes an identity.Caller, which
// holds it for RFC 8693 token exchange at the issuer's token endpoint
// (exchange.go), so that http tools can reach their upstreams as the
// caller without sending the caller's token on.
//
// Nothing here is fetched when a Verifier is made: an issuer that cannot
// be reached makes requests fail with ErrUnavailable (HTTP 503) until it
// can be, and serving goes on. Every size, time and count a token or a
// remote document can influence is capped (see the constants).
package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/identity"
)

// Limits on what callers and remote servers can make a Verifier do.
const (
	// MaxTokenBytes caps the length of a bearer token.
	MaxTokenBytes = 8 << 10
	// MaxDocumentBytes caps a discovery document, a JWKS and an
	// introspection answer.
	MaxDocumentBytes = 256 << 10
	// FetchTimeout bounds one fetch of a discovery document, a JWKS or an
	// introspection answer, redirects included.
	FetchTimeout = 10 * time.Second
	// MaxKeys caps the keys of a JWKS that are kept.
	MaxKeys = 64
	// KeysMaxAge is how long fetched keys are used before they are
	// fetched again (the old ones stay in use when that fails).
	KeysMaxAge = time.Hour
	// RefetchEvery and RefetchBurst rate-limit the fetches that tokens
	// naming unknown keys cause: RefetchBurst at once, then one per
	// RefetchEvery.
	RefetchEvery = 30 * time.Second
	RefetchBurst = 3
	// RetryFirst and RetryMax space the attempts to reach an issuer
	// whose discovery or keys could not be fetched: the wait doubles
	// from RetryFirst up to RetryMax; requests meanwhile get
	// ErrUnavailable at once.
	RetryFirst = time.Second
	RetryMax   = 30 * time.Second
	// MaxIntrospectionCache caps the introspection answers kept (by the
	// token's SHA-256), and IntrospectionTTL how long one is kept: never
	// past the token's exp; inactive answers for InactiveTTL.
	MaxIntrospectionCache = 10000
	IntrospectionTTL      = time.Minute
	InactiveTTL           = 10 * time.Second
	// IntrospectionRate caps the introspections of tokens not in the
	// cache, per second, IntrospectionBurst at once: a caller sending
	// made-up tokens cannot turn toolhost into a flood on the issuer. A
	// token over the cap waits up to IntrospectionWait for its turn, then
	// is refused with 503. Requests with the same token share one
	// introspection.
	IntrospectionRate  = 20
	IntrospectionBurst = 40
	IntrospectionWait  = 2 * time.Second
)

// ErrUnavailable is wrapped by the errors of a Verify that could not
// decide because the issuer's keys or its introspection endpoint could
// not be reached: the request is refused with 503, not 401, and the next
// ones are checked again once the issuer answers.
var ErrUnavailable = errors.New("the token issuer cannot be reached")

// ErrInvalidToken is wrapped by the errors of a Verify that refused the
// token itself: 401 with error="invalid_token".
var ErrInvalidToken = errors.New("invalid token")

// Verifier checks bearer tokens against one auth block. It is safe for
// concurrent use; its caches live as long as it does.
type Verifier struct {
	cfg        *thcl.Auth
	algs       []jose.SignatureAlgorithm
	client     *http.Client
	logger     *slog.Logger
	now        func() time.Time
	keys       *keySet        // nil without issuer and jwks_url
	introspect *introCache    // nil without introspection_url
	exch       *exchangeState // nil when the auth block cannot exchange tokens
}

// New returns the Verifier of the auth block a. It fetches nothing (see
// the package doc); logger says when the issuer cannot be reached and when
// it can again.
func New(a *thcl.Auth, logger *slog.Logger) *Verifier {
	if logger == nil {
		logger = slog.Default()
	}
	names := a.Algorithms
	if len(names) == 0 {
		names = thcl.AuthAlgorithms
	}
	v := &Verifier{cfg: a, logger: logger, now: time.Now, client: newClient()}
	for _, n := range names {
		if slices.Contains(thcl.AuthAlgorithms, n) { // the config checked them: this keeps none and HS* out whatever it said
			v.algs = append(v.algs, jose.SignatureAlgorithm(n))
		}
	}
	if a.Issuer != "" || a.JWKSURL != "" {
		v.keys = newKeySet(v, a.Issuer, a.JWKSURL)
	}
	if a.IntrospectionURL != "" {
		v.introspect = newIntroCache()
	}
	v.exch = newExchange(a)
	return v
}

// Config returns the auth block v checks tokens against.
func (v *Verifier) Config() *thcl.Auth { return v.cfg }

// Verify checks token and returns its Caller. Its errors wrap
// ErrInvalidToken (the token is refused) or ErrUnavailable (the issuer
// cannot be reached), and say why in words a client's user can act on.
func (v *Verifier) Verify(ctx context.Context, token string) (*identity.Caller, error) {
	if len(token) > MaxTokenBytes {
		return nil, fmt.Errorf("%w: the token is %d bytes long; toolhost takes tokens of up to %d", ErrInvalidToken, len(token), MaxTokenBytes)
	}
	jwtShaped := strings.Count(token, ".") == 2
	var caller *identity.Caller
	var err error
	switch {
	case jwtShaped && v.keys != nil:
		caller, err = v.verifyJWT(ctx, token)
	case v.introspect != nil:
		caller, err = v.introspectToken(ctx, token)
	default:
		return nil, fmt.Errorf("%w: the token is not a JWT, and this server checks only JWTs (the auth block has no introspection_url for opaque tokens)", ErrInvalidToken)
	}
	if err != nil {
		return nil, err
	}
	return caller.WithToken(token, v.exchange), nil
}

// claims are the claims of a JWT that Verify reads beyond the registered ones.
type claims struct {
	Scope string `json:"scope"`
	Scp   any    `json:"scp"`
}

// verifyJWT checks a JWT's algorithm, signature, issuer, audience and
// times, and makes its Caller.
func (v *Verifier) verifyJWT(ctx context.Context, token string) (*identity.Caller, error) {
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidToken, parseProblem(token, v.algs))
	}
	hdr := tok.Headers[0]
	keys, err := v.keys.lookup(ctx, hdr.KeyID)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	var extra claims
	var all map[string]any
	verified := false
	for _, k := range keys {
		if k.Algorithm != "" && k.Algorithm != hdr.Algorithm {
			continue
		}
		if tok.Claims(k.Key, &std, &extra, &all) == nil {
			verified = true
			break
		}
	}
	if !verified {
		if hdr.KeyID == "" {
			return nil, fmt.Errorf("%w: the signature matches none of the issuer's keys (the token names no key, kid)", ErrInvalidToken)
		}
		return nil, fmt.Errorf("%w: the signature does not match the issuer's key %q", ErrInvalidToken, hdr.KeyID)
	}
	if std.Expiry == nil {
		return nil, fmt.Errorf("%w: the token has no expiry (exp)", ErrInvalidToken)
	}
	want := jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: jwt.Audience{v.cfg.Audience}, Time: v.now()}
	if err := std.ValidateWithLeeway(want, v.cfg.ClockSkew); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidToken, v.claimProblem(err, &std))
	}
	if std.Subject == "" {
		return nil, fmt.Errorf("%w: the token names no subject (sub)", ErrInvalidToken)
	}
	return &identity.Caller{Subject: std.Subject, Scopes: jwtScopes(extra), Claims: all, Expiry: std.Expiry.Time()}, nil
}

// parseProblem says why a JWT could not be parsed: most often an
// algorithm that is not allowed (none, or HS256 signed with a public key).
func parseProblem(token string, algs []jose.SignatureAlgorithm) string {
	var hdr struct {
		Alg string `json:"alg"`
	}
	head, _, _ := strings.Cut(token, ".")
	if raw, err := base64.RawURLEncoding.DecodeString(head); err == nil {
		_ = json.Unmarshal(raw, &hdr)
	}
	if hdr.Alg != "" && !slices.Contains(algs, jose.SignatureAlgorithm(hdr.Alg)) {
		names := make([]string, len(algs))
		for i, a := range algs {
			names[i] = string(a)
		}
		return fmt.Sprintf("the token is signed with %q, which this server does not take (it takes %s)", hdr.Alg, strings.Join(names, ", "))
	}
	return "the token is not a well-formed signed JWT"
}

// claimProblem says which claim check err is.
func (v *Verifier) claimProblem(err error, c *jwt.Claims) string {
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return fmt.Sprintf("the token expired at %s", c.Expiry.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrNotValidYet):
		return fmt.Sprintf("the token is not valid before %s", c.NotBefore.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return fmt.Sprintf("the token was issued in the future (iat %s)", c.IssuedAt.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return fmt.Sprintf("the token was issued by %q, not by %q", c.Issuer, v.cfg.Issuer)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return fmt.Sprintf("the token is for the audience %q, not for this server (%s)", strings.Join(c.Audience, " "), v.cfg.Audience)
	}
	return err.Error()
}

// jwtScopes are the scopes of scope (space-separated) and scp (a list,
// or a string as some issuers write it).
func jwtScopes(c claims) []string {
	out := strings.Fields(c.Scope)
	switch s := c.Scp.(type) {
	case string:
		out = append(out, strings.Fields(s)...)
	case []any:
		for _, e := range s {
			if str, ok := e.(string); ok {
				out = append(out, str)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// tokenHash is the key of a token in caches: tokens themselves are not kept.
func tokenHash(token string) [sha256.Size]byte { return sha256.Sum256([]byte(token)) }
