package http

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// redirectError is a refused redirect. Its message is final.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

// redirectSafeHeaders are the headers kept when a redirect leaves the
// original host and port; the others (API keys and the like) are dropped.
var redirectSafeHeaders = map[string]bool{
	"Accept":          true,
	"Accept-Encoding": true,
	"Accept-Language": true,
	"User-Agent":      true,
}

// checkRedirect enforces max_redirects, refuses any change of scheme (http
// to https included: the author writes the final scheme in the url), and
// drops the configured headers when the redirect goes to another host or
// port.
func (h *HTTP) checkRedirect(req *http.Request, via []*http.Request) error {
	host := via[0].URL.Host
	if len(via) > h.maxRedirects {
		if h.maxRedirects == 0 {
			return &redirectError{fmt.Sprintf("%s answered with a redirect and max_redirects is 0; raise max_redirects or use the final URL", host)}
		}
		return &redirectError{fmt.Sprintf("request to %s was redirected more than %d times (max_redirects)", host, h.maxRedirects)}
	}
	switch req.URL.Scheme {
	case "http", "https":
		if from := via[len(via)-1].URL.Scheme; !strings.EqualFold(from, req.URL.Scheme) {
			return &redirectError{fmt.Sprintf("request to %s was redirected from %s to %s (%s); redirects never change the scheme. Write the final URL, with its scheme, in the url argument", host, from, req.URL.Scheme, req.URL.Scheme+"://"+req.URL.Host)}
		}
	default:
		return &redirectError{fmt.Sprintf("request to %s was redirected to a %q URL; only http and https are followed", host, req.URL.Scheme)}
	}
	if err := h.checkHost(req.URL.Hostname()); err != nil {
		return &redirectError{fmt.Sprintf("request to %s was redirected to %s, which is not in allow_hosts; the redirect was refused", host, req.URL.Hostname())}
	}
	if origin(req.URL) != origin(via[0].URL) {
		for name := range req.Header {
			if !redirectSafeHeaders[name] {
				req.Header.Del(name)
			}
		}
	}
	return nil
}

// origin is the host and port a URL reaches, lower-cased, with the
// scheme's default port filled in: a redirect to another port of the same
// host reaches another service, so it leaves the original host as much as
// one to another name does.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
