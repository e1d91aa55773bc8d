package hcl

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/adapters"
)

// ExchangeClient returns the client credentials toolhost authenticates
// with at the issuer's token endpoint for token exchange: exchange_client_id
// and exchange_client_secret, or else the introspection client's.
func (a *Auth) ExchangeClient() (id, secret string) {
	if a.ExchangeClientID != "" {
		return a.ExchangeClientID, a.ExchangeClientSecret
	}
	return a.IntrospectionClientID, a.IntrospectionClientSecret
}

// checkExchangeAuth refuses a token_exchange block (of a tool or resource
// whose backend is an adapters.TokenExchanger) in a config whose auth block
// cannot exchange tokens: there is none (no call would have a token), it
// has no issuer (whose discovery names the token endpoint), or no client
// credentials to authenticate at that endpoint with.
func (c *Config) checkExchangeAuth() hcl.Diagnostics {
	var diags hcl.Diagnostics
	check := func(what, name string, b adapters.Backend) {
		x, ok := b.(adapters.TokenExchanger)
		if !ok || x.TokenExchange() == nil {
			return
		}
		var why string
		var a *Auth
		if c.Server != nil {
			a = c.Server.Auth
		}
		switch {
		case a == nil:
			why = "but the server verifies no tokens, so no call would have one to exchange. Add server { auth { ... } } with the issuer and audience of your authorization server, and the client credentials toolhost exchanges tokens with (exchange_client_id, exchange_client_secret)"
		case a.Issuer == "":
			why = "but the auth block has no issuer, whose discovery document names the token endpoint the exchange is asked of. Add issuer to the auth block"
		default:
			if id, _ := a.ExchangeClient(); id == "" {
				why = "but the auth block has no client credentials to authenticate at the issuer's token endpoint with. Add exchange_client_id and exchange_client_secret (read with env()) to the auth block, for a client the issuer allows to exchange tokens"
			}
		}
		if why != "" {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "token_exchange without an exchanging auth block",
				Detail:   fmt.Sprintf("%s %q exchanges the caller's token for one for its upstream (token_exchange), %s.", what, name, why),
				Subject:  x.TokenExchange(),
			})
		}
	}
	for _, t := range c.Tools {
		check("Tool", t.Name, t.Backend)
	}
	for _, r := range c.Resources {
		check("Resource", r.Name, r.Backend)
	}
	for _, r := range c.ResourceTemplates {
		check("Resource template", r.Name, r.Backend)
	}
	return diags
}
