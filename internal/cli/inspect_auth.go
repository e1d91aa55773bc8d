package cli

import (
	"fmt"
	"io"
	"strings"

	thcl "github.com/toolhost/toolhost/hcl"
)

// inspectAuth prints, for inspectText, what the auth block asks of
// callers, and that it applies to HTTP only.
func inspectAuth(w io.Writer, a *thcl.Auth) {
	if a == nil {
		return
	}
	from := a.Issuer
	if from == "" {
		from = firstOf(a.JWKSURL, a.IntrospectionURL)
	}
	fmt.Fprintf(w, "\nauth: OAuth bearer tokens from %s for %s", from, a.Audience)
	if len(a.Scopes) > 0 {
		fmt.Fprintf(w, ", with the scopes %s", strings.Join(a.Scopes, " "))
	}
	if a.ExchangeClientID != "" {
		fmt.Fprintf(w, "; token exchange (RFC 8693) as the client %s", a.ExchangeClientID)
	}
	fmt.Fprintln(w, "\n  note: auth applies to HTTP (serve --listen) only; over stdio there is no caller and every tool is served")
}
