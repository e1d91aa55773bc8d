// Package http is the http backend: a tool whose call sends one HTTP
// request built from the block's expressions and returns the response
// body, decoded to UTF-8.
//
// Parameter values are escaped for the place they land in (a path segment,
// the query, a header, a JSON body) and never reach the scheme or the host;
// the server block's network policy (allow_hosts, deny_private) is checked
// on the address actually connected to, redirects included; responses are
// capped (max_response) and their error snippets redacted.
package http
