// Package http is the http backend: a tool whose call sends one HTTP
// request built from the block's expressions and returns the response
// body, decoded to UTF-8.
//
// Parameter values are escaped for the place they land in (a path segment,
// the query, a header, a JSON body) and never reach the scheme or the host;
// the server block's network policy (allow_hosts, deny_private) is checked
// on the address actually connected to, redirects included; responses are
// capped (max_response) and their error snippets redacted.
//
// Nested blocks make a tool kind to its upstream and to the model, each in
// a file of its own: retry (retry.go: backoff with jitter, Retry-After, a
// retry budget), breaker and limit (upstream.go: a circuit breaker and
// concurrency and rate limits, shared by the tools that reach one host
// with the same settings; upstream_compile.go reads the three blocks),
// cache (cache.go: the answers of a GET, kept per arguments and caller)
// and select (shaping.go: a parameter with which the model picks the part
// of a JSON answer it wants).
package http
