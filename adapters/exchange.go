package adapters

import "github.com/hashicorp/hcl/v2"

// TokenExchanger is a Backend that sends upstream a token the auth
// block's issuer gives in exchange for the caller's (RFC 8693), such as an
// http block with a token_exchange block. TokenExchange returns the range
// of that block, or nil when the backend exchanges no token; the config
// refuses such a backend without an auth block that can exchange tokens.
type TokenExchanger interface {
	TokenExchange() *hcl.Range
}
