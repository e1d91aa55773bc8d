package http

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/internal/identity"
)

// tokenExchangeSchema is the schema of the token_exchange block.
var tokenExchangeSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "audience", Required: true}, {Name: "resource"}, {Name: "scope"},
}}

// tokenExchange is the token_exchange block: each call trades the
// caller's verified token at the auth block's issuer (RFC 8693) for a
// token for want, and sends that upstream as Authorization: Bearer. The
// caller's own token is never sent.
type tokenExchange struct {
	want identity.Exchange
	rng  hcl.Range
}

// TokenExchange returns the range of the token_exchange block, or nil (see
// adapters.TokenExchanger).
func (h *HTTP) TokenExchange() *hcl.Range {
	if h.tokenExchange == nil {
		return nil
	}
	return h.tokenExchange.rng.Ptr()
}

// compileTokenExchange reads the token_exchange block b into h. Its values
// are fixed when the config loads: the model calling the tool does not
// choose whom the token is for. headers is the http block's headers
// attribute, which must not set Authorization as well.
func (c *compiler) compileTokenExchange(h *HTTP, b *hcl.Block, headers *hcl.Attribute) {
	content, diags := b.Body.Content(tokenExchangeSchema)
	for _, d := range diags {
		if d.Summary == "Missing required argument" {
			d.Subject = b.DefRange.Ptr()
			d.Detail += ` Add the audience of the upstream's tokens to the token_exchange block, for example audience = "https://api.example.com".`
		}
	}
	c.diags = append(c.diags, diags...)
	x := &tokenExchange{rng: b.DefRange}
	str := func(name, example string) string {
		a := content.Attributes[name]
		if a == nil {
			return ""
		}
		v, ok := c.constant(a, cty.String, "a string such as "+example)
		if !ok {
			return ""
		}
		s := strings.TrimSpace(v.AsString())
		if s == "" {
			c.errorf(a.Expr.Range(), "Empty "+name, "The %s of token_exchange is empty. Write it, as in %s = %s, or remove it.", name, name, example)
		}
		return s
	}
	x.want.Audience = str("audience", `"https://api.example.com"`)
	x.want.Scope = str("scope", `"read"`)
	if x.want.Resource = str("resource", `"https://api.example.com/v1"`); x.want.Resource != "" {
		if u, err := url.Parse(x.want.Resource); err != nil || !u.IsAbs() || u.Fragment != "" {
			c.errorf(content.Attributes["resource"].Expr.Range(), "Invalid resource",
				"The resource of token_exchange must be an absolute URL without a fragment (RFC 8707), as in \"https://api.example.com/v1\"; %q is not.", x.want.Resource)
		}
	}
	if headers != nil && h.headers != nil && h.headers.names(authorizationHeader) {
		c.errorf(headers.Expr.Range(), "Authorization header with token_exchange",
			"The headers set Authorization, and the token_exchange block sends the exchanged token as Authorization: Bearer in its place. Remove Authorization from the headers, or remove the token_exchange block.")
	}
	h.tokenExchange = x
}

// authorizationHeader is the header the exchanged token goes in.
const authorizationHeader = "Authorization"

// names reports whether kv has an entry named name (in any case) that is
// known when the config loads.
func (kv *kvArg) names(name string) bool {
	for _, p := range kv.pairs {
		if strings.EqualFold(p.name, name) {
			return true
		}
	}
	return false
}

// authorize exchanges the token of ctx's caller and puts the token it
// gets in out's Authorization header; it adds that token to secrets.
// A call without a caller (stdio, the bridge, toolhost call) is refused.
func (x *tokenExchange) authorize(ctx context.Context, tool string, out *outgoing, secrets *callSecrets) error {
	caller := identity.FromContext(ctx)
	if caller == nil {
		return fmt.Errorf("the tool %q sends its upstream a token exchanged for the caller's (token_exchange in its config), and this call comes with no token: "+
			"it can be called only over HTTP, with a token the server verifies (over stdio, through the bridge or with toolhost call, the local user has none)", tool)
	}
	if out.target.Scheme != "https" && !loopback(out.target.Hostname()) {
		return fmt.Errorf("the tool %q would send the token exchanged for the caller's to %s in the clear (http), where anyone on the way could take it; use an https URL", tool, out.target.Host)
	}
	if out.header.Get(authorizationHeader) != "" {
		return fmt.Errorf("the tool %q sets the header Authorization, which token_exchange sets with the exchanged token; remove it from the headers", tool)
	}
	tok, err := caller.Exchange(ctx, x.want)
	if errors.Is(err, identity.ErrNoExchange) {
		return fmt.Errorf("the tool %q cannot exchange the caller's token for the audience %q: %v", tool, x.want.Audience, err)
	}
	if err != nil {
		return fmt.Errorf("the tool %q cannot reach its upstream as the caller: %v", tool, err)
	}
	secrets.known = append(secrets.known, tok)
	out.header.Set(authorizationHeader, "Bearer "+tok)
	return nil
}

// loopback reports whether host is this machine (localhost or a loopback
// address), where http does not cross a network.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
