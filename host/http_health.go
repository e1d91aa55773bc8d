package host

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// serveHealth answers whether the process is up.
func (h *HTTPServer) serveHealth(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: use GET", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, "ok\n")
}

// readyStatus is the body of /readyz. It is served without
// authentication, so it says nothing a probe does not need: no file paths.
type readyStatus struct {
	Status    string `json:"status"`
	Server    string `json:"server,omitempty"`
	Tools     int    `json:"tools"`
	Resources int    `json:"resources"`
	Prompts   int    `json:"prompts"`
	Stateless bool   `json:"stateless"`
	// InFlight is the number of MCP requests being handled.
	InFlight int64 `json:"calls_in_flight"`
}

// serveReady answers whether the server takes requests: a valid config is
// in service (a config with errors never is, and a broken edit keeps the
// last valid one) and no shutdown has started.
func (h *HTTPServer) serveReady(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: use GET", http.StatusMethodNotAllowed)
		return
	}
	st := readyStatus{Status: "ready", Stateless: h.opts.Stateless, InFlight: h.inflight.Load()}
	code := http.StatusOK
	if reg := h.srv.Registry(); reg == nil || reg.Config == nil {
		st.Status, code = "no config in service", http.StatusServiceUnavailable
	} else if reg.Placeholder() {
		st.Status, code = notReadyBroken, http.StatusServiceUnavailable
	} else {
		if reg.Config.Server != nil {
			st.Server = reg.Config.Server.Name
		}
		st.Tools, st.Resources, st.Prompts = len(reg.Tools), len(reg.Resources)+len(reg.Templates), len(reg.Prompts)
	}
	if h.shutting.Load() {
		st.Status, code = "shutting down", http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(st)
}

func serveNotFound(w http.ResponseWriter, r *http.Request) {
	http.Error(w, fmt.Sprintf("404 page not found: %s\ntoolhost serves MCP at /mcp (streamable HTTP) and /sse (legacy SSE), and health at /healthz and /readyz.", r.URL.Path), http.StatusNotFound)
}
