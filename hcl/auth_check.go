package hcl

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// AuthAlgorithms are the JWS algorithms the auth block may allow: the
// asymmetric ones, whose verification key is public. They are also the
// default of algorithms.
var AuthAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// checkAuth checks what the auth block's attributes say together: the
// algorithms are asymmetric ones, the URLs are absolute (https, or http on
// loopback), the introspection credentials come in pairs, and (a warning)
// jwks_url comes with issuer.
func checkAuth(attrs hcl.Attributes, a *Auth) hcl.Diagnostics {
	var diags hcl.Diagnostics
	bad := func(name, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: attrs[name].Expr.Range().Ptr()})
	}
	for _, alg := range a.Algorithms {
		switch {
		case slices.Contains(AuthAlgorithms, alg):
		case strings.EqualFold(alg, "none"):
			bad("algorithms", "Unsigned tokens allowed",
				`A token with alg "none" has no signature: anyone could write one. Remove "none" from algorithms.`)
		case strings.HasPrefix(strings.ToUpper(alg), "HS"):
			bad("algorithms", "Symmetric algorithm allowed",
				fmt.Sprintf("%s signs with a shared secret, and the keys toolhost checks tokens with are public (a JWKS): a token signed with the public key would pass. Remove %s; allow asymmetric algorithms only: %s.", alg, alg, strings.Join(AuthAlgorithms, ", ")))
		default:
			bad("algorithms", "Unknown algorithm",
				fmt.Sprintf("%q is not a JWS algorithm toolhost checks tokens with. Use some of %s (the default is all of them).", alg, strings.Join(AuthAlgorithms, ", ")))
		}
	}
	for _, name := range []string{"issuer", "jwks_url", "introspection_url", "audience"} {
		if v := authURL(a, name); v != "" {
			if msg := checkAuthURL(v, name != "audience"); msg != "" {
				bad(name, "Invalid URL", fmt.Sprintf("%s %q %s.", name, v, msg))
			}
		}
	}
	for _, v := range a.AuthorizationServers {
		if msg := checkAuthURL(v, true); msg != "" {
			bad("authorization_servers", "Invalid URL", fmt.Sprintf("authorization_servers: %q %s.", v, msg))
		}
	}
	if a.Issuer == "" && a.JWKSURL != "" {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Token issuer not checked",
			Detail:  "With jwks_url and no issuer, a JWT is taken from any issuer whose keys are published there (iss is not checked): where several tenants or issuers share keys, one's tokens pass for another's. Add issuer, the URL tokens name in iss.",
			Subject: attrs["jwks_url"].Expr.Range().Ptr()})
	}
	for _, pair := range []struct{ what, id, secret, env string }{
		{"introspection", a.IntrospectionClientID, a.IntrospectionClientSecret, "INTROSPECTION_SECRET"},
		{"exchange", a.ExchangeClientID, a.ExchangeClientSecret, "EXCHANGE_SECRET"},
	} {
		if (pair.id == "") != (pair.secret == "") {
			name := pair.what + "_client_id"
			if pair.id == "" {
				name = pair.what + "_client_secret"
			}
			bad(name, "Incomplete "+pair.what+" credentials",
				fmt.Sprintf("%[1]s_client_id and %[1]s_client_secret go together: give both (the secret read with env(), as in env(%[2]q)), or neither.", pair.what, pair.env))
		}
	}
	if a.IntrospectionClientID != "" && a.IntrospectionURL == "" {
		bad("introspection_client_id", "Introspection credentials without introspection_url",
			"The introspection credentials are sent to introspection_url, which is not set. Add introspection_url, or remove the credentials.")
	}
	return diags
}

// authURL is the value of the auth block's URL attribute name.
func authURL(a *Auth, name string) string {
	switch name {
	case "issuer":
		return a.Issuer
	case "jwks_url":
		return a.JWKSURL
	case "introspection_url":
		return a.IntrospectionURL
	}
	return a.Audience
}

// checkAuthURL says what is wrong with an auth URL, or "": it must be
// absolute http(s) without a fragment, and when secure, https unless its
// host is loopback (keys and token checks fetched in the clear could be
// replaced on the way).
func checkAuthURL(s string, secure bool) string {
	u, err := url.Parse(s)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return "is not an absolute http(s) URL; write it in full, as in https://login.example.com/realms/team"
	case u.Fragment != "" || u.User != nil:
		return "has a fragment or user info; remove it"
	case secure && u.Scheme == "http" && !loopbackHost(u.Hostname()):
		return "is plain http to another machine, where what toolhost fetches could be replaced on the way; use https"
	}
	return ""
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
