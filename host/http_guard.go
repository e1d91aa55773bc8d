package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// guard checks what every MCP endpoint requires: an allowed Host and Origin
// (DNS-rebinding protection), the OAuth token when the config has an auth
// block (checkOAuth) or else the static token when one is set, and a body
// no larger than the limit, read within the body read timeout. It answers CORS
// preflights from allowed origins.
func (h *HTTPServer) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := h.policy.Load()
		if !p.hostAllowed(r.Host) {
			refuse(w, r, http.StatusForbidden, "host not allowed",
				fmt.Sprintf("Forbidden: Host %q is not allowed. If clients reach toolhost under this name, add it with --allowed-hosts %s", r.Host, hostOnly(r.Host)))
			return
		}
		origin := r.Header.Get("Origin")
		if origin != "" {
			if !p.originAllowed(origin) {
				fix := fmt.Sprintf("If this web page should reach toolhost, add it with --allowed-origins %s", origin)
				if origin == "null" {
					// Sandboxed frames, file: pages and some redirects send
					// "null": allowing it would allow every one of them.
					fix = "Browsers send Origin: null from sandboxed frames, file: pages and cross-origin redirects, so it names no site to allow; " +
						"serve the page from an http(s) origin and add that with --allowed-origins"
				}
				refuse(w, r, http.StatusForbidden, "origin not allowed",
					fmt.Sprintf("Forbidden: Origin %q is not allowed. %s", origin, fix))
				return
			}
			corsHeaders(w.Header(), origin)
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if v := h.verifier(); v != nil {
			var ok bool
			if r, ok = h.checkOAuth(w, r, v); !ok {
				return
			}
			var stop context.CancelFunc
			r, stop = streamUntilExpiry(r, v.Config().ClockSkew)
			defer stop()
		} else if h.opts.AuthToken != "" && !h.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolhost"`)
			msg := "Unauthorized: send the token as the header Authorization: Bearer TOKEN (the token is in the environment variable named by --auth-token-env where toolhost runs)"
			if a := strings.TrimSpace(r.Header.Get("Authorization")); a != "" {
				scheme, token, _ := strings.Cut(a, " ")
				switch {
				case !strings.Contains(a, " ") && !strings.EqualFold(a, "Bearer"):
					// A value alone is no scheme: most often the token
					// without "Bearer ". It is not repeated as a scheme.
					msg = "Unauthorized: the Authorization header has no scheme: send the token as Authorization: Bearer TOKEN"
				case strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) == "":
					// "Bearer " and nothing: the client's variable for the
					// token is empty or unset where it runs. No token was
					// sent, so no error code either.
					msg = "Unauthorized: the Authorization header has no token after Bearer: the client sent an empty token (is the variable it takes the token from set where the client runs?)"
				case !strings.EqualFold(scheme, "Bearer"):
					// Another scheme is no bearer token at all: RFC 6750
					// (3.1) asks for no error code then.
					msg = fmt.Sprintf("Unauthorized: toolhost takes a bearer token, not %s credentials: send the header Authorization: Bearer TOKEN", scheme)
				default:
					w.Header().Set("WWW-Authenticate", `Bearer realm="toolhost", error="invalid_token"`)
					msg = "Unauthorized: the bearer token is not the one toolhost was started with"
				}
			}
			refuse(w, r, http.StatusUnauthorized, "unauthorized", msg)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			if r.ContentLength > h.opts.MaxBodyBytes {
				refuse(w, r, http.StatusRequestEntityTooLarge, "body too large",
					fmt.Sprintf("request body is %d bytes; the limit is %d (--max-message-size)", r.ContentLength, h.opts.MaxBodyBytes))
				return
			}
			body, ok := h.readBody(w, r)
			if !ok {
				return
			}
			r.Body = body
		}
		next.ServeHTTP(w, r)
	})
}

// authorized reports whether r carries the bearer token. Both sides are
// hashed first, so the comparison takes the same time whatever the token's
// length.
func (h *HTTPServer) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], h.tokenHash[:]) == 1
}

// refuse answers an error and notes the reason for the access log.
func refuse(w http.ResponseWriter, r *http.Request, code int, reason, msg string) {
	if n, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*n = reason
	}
	http.Error(w, msg, code)
}

func corsHeaders(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
	h.Set("Access-Control-Max-Age", "600")
}

// readBody reads a request's body, no larger than the limit, within the
// body read timeout, so that a body sent without a length (chunked) is
// refused like one whose length is declared. It answers the error and
// reports false when the body cannot be read.
func (h *HTTPServer) readBody(w http.ResponseWriter, r *http.Request) (*readBody, bool) {
	timeout := h.opts.BodyReadTimeout
	if timeout <= 0 {
		timeout = DefaultBodyReadTimeout
	}
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(timeout)) == nil
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	slow := errors.Is(err, os.ErrDeadlineExceeded)
	if deadline && !slow {
		// A response streamed for long afterwards is not cut by it.
		_ = rc.SetReadDeadline(time.Time{})
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		refuse(w, r, http.StatusRequestEntityTooLarge, "body too large",
			fmt.Sprintf("request body exceeds %d bytes, the limit (--max-message-size)", h.opts.MaxBodyBytes))
		return nil, false
	case slow:
		// The rest of the body may never come. Without this, the server
		// would wait to read it before it answers (to reuse the
		// connection), holding the connection for as long as the client
		// likes, and the answer would never go out.
		w.Header().Set("Connection", "close")
		refuse(w, r, http.StatusRequestTimeout, "body too slow",
			fmt.Sprintf("the request body did not arrive within %s; send it at once", timeout))
		return nil, false
	case err != nil:
		refuse(w, r, http.StatusBadRequest, "body unreadable", "cannot read the request body: "+err.Error())
		return nil, false
	}
	return &readBody{Reader: bytes.NewReader(data), data: data}, true
}

// readBody is a request body read in full by guard, for the SDK's handlers
// to read again and for streamablePOST to look into.
type readBody struct {
	*bytes.Reader
	data []byte
}

func (*readBody) Close() error { return nil }

// originPolicy is the Host and Origin allow-list.
type originPolicy struct {
	anyHost, anyOrigin bool
	// hosts maps a lower-case host name to the ports allowed with it; an
	// empty port allows any.
	hosts   map[string][]string
	origins map[string]bool
}

// newOriginPolicy allows the listen host (unless it is a wildcard address)
// and localhost, 127.0.0.1 and [::1], all with the listen port, plus the
// extra hosts; and the origins of all of those, plus the extra origins.
func newOriginPolicy(addr string, extraHosts, extraOrigins []string) (*originPolicy, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", addr, err)
	}
	p := &originPolicy{hosts: map[string][]string{}, origins: map[string]bool{}}
	add := func(h, port string) {
		h = normHost(h)
		if !slices.Contains(p.hosts[h], port) {
			p.hosts[h] = append(p.hosts[h], port)
		}
	}
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		add(h, port)
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		add(host, port)
	}
	for _, e := range extraHosts {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			continue
		case e == "*":
			p.anyHost = true
			continue
		case strings.Contains(e, "/"):
			return nil, fmt.Errorf("--allowed-hosts %q: give a host name with an optional port, as in mcp.example.com or mcp.example.com:8443, not a URL", e)
		case strings.Contains(e, "*"):
			// It would be taken as a name, which no Host matches.
			return nil, fmt.Errorf("--allowed-hosts %q: patterns are not supported: list every name clients use, as in --allowed-hosts a.example.com,b.example.com, or give * alone to accept any Host (when a proxy in front checks it)", e)
		}
		h, pt, err := net.SplitHostPort(e)
		if err != nil {
			// No port: any port.
			h, pt = strings.Trim(e, "[]"), ""
		} else if n, err := strconv.Atoi(pt); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("--allowed-hosts %q: the port is not a number from 1 to 65535: give a host name with an optional port, as in mcp.example.com:8443", e)
		}
		add(h, pt)
	}
	for _, e := range extraOrigins {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			continue
		case e == "*":
			p.anyOrigin = true
			continue
		case strings.Contains(e, "*"):
			return nil, fmt.Errorf("--allowed-origins %q: patterns are not supported: list every origin, as in --allowed-origins https://a.example.com,https://b.example.com, or give * alone to accept any", e)
		}
		o, ok := normOrigin(e)
		if !ok {
			return nil, fmt.Errorf("--allowed-origins %q: give an origin as scheme://host[:port], as in https://app.example.com", e)
		}
		p.origins[o] = true
	}
	return p, nil
}

// hostAllowed reports whether a Host header value is allowed.
func (p *originPolicy) hostAllowed(hostport string) bool {
	if p.anyHost {
		return true
	}
	h, port, err := net.SplitHostPort(hostport)
	if err != nil {
		h, port = strings.Trim(hostport, "[]"), ""
	}
	ports, ok := p.hosts[normHost(h)]
	if !ok {
		return false
	}
	for _, pt := range ports {
		// A Host without a port is on its scheme's default one, which
		// it does not name: 80 or 443.
		if pt == "" || pt == port || (port == "" && (pt == "80" || pt == "443")) {
			return true
		}
	}
	return false
}

// originAllowed reports whether an Origin header value is allowed: it is
// listed, or it is http(s) on an allowed Host (the server's own pages).
func (p *originPolicy) originAllowed(origin string) bool {
	if p.anyOrigin {
		return true
	}
	o, ok := normOrigin(origin)
	if !ok {
		return false
	}
	if p.origins[o] {
		return true
	}
	u, _ := url.Parse(o)
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	hostport := u.Host
	if u.Port() == "" {
		def := "80"
		if u.Scheme == "https" {
			def = "443"
		}
		hostport = net.JoinHostPort(u.Hostname(), def)
	}
	return p.hostAllowed(hostport)
}

// hostList is the allow-list for the log.
func (p *originPolicy) hostList() []string {
	if p.anyHost {
		return []string{"*"}
	}
	var out []string
	for h, ports := range p.hosts {
		for _, pt := range ports {
			if pt == "" {
				out = append(out, h)
			} else {
				out = append(out, net.JoinHostPort(h, pt))
			}
		}
	}
	slices.Sort(out)
	return out
}

func normHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}

// normOrigin lower-cases an origin and drops a trailing slash and the
// scheme's default port (which browsers leave out); it reports false for
// what is not scheme://host[:port].
func normOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(s), "/"))
	if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", false
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if p := u.Port(); (scheme == "http" && p == "80") || (scheme == "https" && p == "443") {
		host = strings.TrimSuffix(host, ":"+p)
	}
	return scheme + "://" + host, true
}

// hostOnly strips the port of a Host value for the advice in an error.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

func isLoopbackHost(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
