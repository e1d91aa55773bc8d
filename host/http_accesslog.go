package host

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"time"
)

// accessNoteKey is the context key of the access log's note: why a request
// was refused.
type accessNoteKey struct{}

// accessLog writes one structured line per request on the logger (health
// checks at debug level, so that probes do not flood the log).
func (h *HTTPServer) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		note := new(string)
		r = r.WithContext(context.WithValue(r.Context(), accessNoteKey{}, note))
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			level := slog.LevelInfo
			if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" {
				level = slog.LevelDebug
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", status),
				slog.Int64("bytes", sw.bytes),
				slog.Duration("duration", time.Since(start)),
				slog.String("remote", r.RemoteAddr),
			}
			if sid := cmp.Or(r.Header.Get("Mcp-Session-Id"), sw.Header().Get("Mcp-Session-Id")); sid != "" {
				attrs = append(attrs, slog.String("session", sessionForLog(sid)))
			}
			if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
				attrs = append(attrs, slog.String("forwarded_for", xff))
			}
			if ua := r.UserAgent(); ua != "" {
				attrs = append(attrs, slog.String("user_agent", ua))
			}
			if *note != "" {
				attrs = append(attrs, slog.String("refused", *note))
			}
			h.logger.LogAttrs(context.Background(), level, "http request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}
