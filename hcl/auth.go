package hcl

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/internal/attr"
)

// Auth is the auth block of the server block: how HTTP requests prove
// who they come from, with OAuth 2.1 bearer tokens that an authorization
// server issued for this server (toolhost is the resource server). stdio
// has no caller and ignores it.
type Auth struct {
	// Issuer is the authorization server's issuer URL; its OpenID
	// discovery document names the JWKS. Empty when JWKSURL is set alone.
	Issuer string
	// JWKSURL is where the keys that sign tokens are published.
	JWKSURL string
	// Audience is this server's canonical URL: a token must be issued
	// for it (aud).
	Audience string
	// Algorithms are the JWS algorithms a token may be signed with.
	Algorithms []string
	// ClockSkew is the leeway on exp, nbf and iat.
	ClockSkew time.Duration
	// Scopes are required of every request.
	Scopes []string
	// IntrospectionURL is the RFC 7662 endpoint that opaque tokens are
	// checked against; empty when only JWTs are taken.
	IntrospectionURL string
	// IntrospectionClientID and IntrospectionClientSecret authenticate
	// toolhost to the introspection endpoint (HTTP Basic, RFC 7662 2.1);
	// the secret is read with env() and never shown.
	IntrospectionClientID, IntrospectionClientSecret string
	// ExchangeClientID and ExchangeClientSecret authenticate toolhost at
	// the issuer's token endpoint for RFC 8693 token exchange (the
	// token_exchange blocks of http tools); see ExchangeClient.
	ExchangeClientID, ExchangeClientSecret string
	// ResourceName is the human-readable name of this server in its
	// Protected Resource Metadata (RFC 9728); empty leaves it out.
	ResourceName string
	// AuthorizationServers are the issuers a client may get tokens from,
	// as the Protected Resource Metadata lists them; Issuer when empty.
	AuthorizationServers []string
	DeclRange            hcl.Range
}

// authBlockSchema is the schema of the auth block.
var authBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "issuer"},
		{Name: "jwks_url"},
		{Name: "audience", Required: true},
		{Name: "algorithms"},
		{Name: "clock_skew"},
		{Name: "scopes"},
		{Name: "introspection_url"},
		{Name: "introspection_client_id"},
		{Name: "introspection_client_secret"},
		{Name: "exchange_client_id"},
		{Name: "exchange_client_secret"},
		{Name: "resource_name"},
		{Name: "authorization_servers"},
	},
}

// decodeAuth decodes the auth block of the server block.
func decodeAuth(block *hcl.Block, ctx *hcl.EvalContext) (*Auth, hcl.Diagnostics) {
	content, diags := block.Body.Content(authBlockSchema)
	a := &Auth{DeclRange: block.DefRange}
	diags = append(diags, stringAttr(content.Attributes, "issuer", ctx, &a.Issuer)...)
	diags = append(diags, stringAttr(content.Attributes, "jwks_url", ctx, &a.JWKSURL)...)
	diags = append(diags, stringAttr(content.Attributes, "audience", ctx, &a.Audience)...)
	diags = append(diags, stringListAttr(content.Attributes, "algorithms", ctx, &a.Algorithms)...)
	diags = append(diags, stringListAttr(content.Attributes, "scopes", ctx, &a.Scopes)...)
	diags = append(diags, stringAttr(content.Attributes, "introspection_url", ctx, &a.IntrospectionURL)...)
	diags = append(diags, stringAttr(content.Attributes, "introspection_client_id", ctx, &a.IntrospectionClientID)...)
	diags = append(diags, stringAttr(content.Attributes, "introspection_client_secret", ctx, &a.IntrospectionClientSecret)...)
	diags = append(diags, stringAttr(content.Attributes, "exchange_client_id", ctx, &a.ExchangeClientID)...)
	diags = append(diags, stringAttr(content.Attributes, "exchange_client_secret", ctx, &a.ExchangeClientSecret)...)
	diags = append(diags, stringAttr(content.Attributes, "resource_name", ctx, &a.ResourceName)...)
	diags = append(diags, stringListAttr(content.Attributes, "authorization_servers", ctx, &a.AuthorizationServers)...)
	diags = append(diags, durationAttr(content.Attributes, "clock_skew", ctx, attr.DurationRange{
		Max: 5 * time.Minute, Example: `"30s"`, Examples: `"0s", "30s" or "2m"`,
	}, &a.ClockSkew)...)
	if a.Issuer == "" && a.JWKSURL == "" && a.IntrospectionURL == "" {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing token issuer",
			Detail:   "The auth block needs issuer (the authorization server's URL, whose discovery document names its keys), jwks_url (where the signing keys are published), or introspection_url (for opaque tokens). Add one of them.",
			Subject:  block.DefRange.Ptr(),
		})
	}
	if !diags.HasErrors() {
		diags = append(diags, checkAuth(content.Attributes, a)...)
	}
	return a, diags
}
