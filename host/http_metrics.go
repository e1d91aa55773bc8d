package host

import "net/http"

// serveMetrics serves /metrics on --listen behind guard's checks while
// the config in service has no auth block. With one, serve does not serve
// /metrics on --listen at all (an OAuth token is a caller's, and /metrics
// names every tool and group, those the caller's scopes hide too); a
// reload that adds an auth block stops it the same way, rather than
// leaving it to any holder of a token.
func (h *HTTPServer) serveMetrics(m http.Handler) http.Handler {
	guarded := h.guard(m)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reg := h.srv.Registry(); reg != nil && reg.Config != nil && reg.Config.Server != nil && reg.Config.Server.Auth != nil {
			refuse(w, r, http.StatusNotFound, "metrics not served",
				"Not Found: /metrics is not served on --listen while the config has an auth block; serve it on an address of its own with serve --metrics-listen")
			return
		}
		guarded.ServeHTTP(w, r)
	})
}
