package host

import (
	"context"
	"log/slog"

	"github.com/hashicorp/hcl/v2"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/diagtext"
)

// DiagnosticLogger is a writer of diagnostics that logs them as records
// (LogDiagnostics) instead of the rendering with source lines for
// people: serve --log-format json gives one as the Reloader's
// Diagnostics.
type DiagnosticLogger interface {
	LogDiagnostics(diags hcl.Diagnostics)
}

// LogDiagnostics logs one record per diagnostic of diags: "config error"
// at error, "config warning" at warn, with its place (file, line, col:
// the start of its subject, when it has one), severity, summary and
// detail.
func LogDiagnostics(logger *slog.Logger, diags hcl.Diagnostics) {
	for _, d := range diags {
		level, msg, severity := slog.LevelWarn, "config warning", "warning"
		if d.Severity == hcl.DiagError {
			level, msg, severity = slog.LevelError, "config error", "error"
		}
		attrs := make([]slog.Attr, 0, 6)
		if d.Subject != nil {
			attrs = append(attrs, slog.String("file", d.Subject.Filename),
				slog.Int("line", d.Subject.Start.Line), slog.Int("col", d.Subject.Start.Column))
		}
		attrs = append(attrs, slog.String("severity", severity), slog.String("summary", d.Summary))
		if d.Detail != "" {
			attrs = append(attrs, slog.String("detail", d.Detail))
		}
		logger.LogAttrs(context.Background(), level, msg, attrs...)
	}
}

// writeDiagnostics writes diags of cfg (which may be nil) where the
// Reloader's Diagnostics go: as records to a DiagnosticLogger, rendered
// with source lines to any other writer.
func (r *Reloader) writeDiagnostics(cfg *thcl.Config, diags hcl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	if dl, ok := r.diagOut().(DiagnosticLogger); ok {
		dl.LogDiagnostics(diags)
		return
	}
	diagtext.Write(r.diagOut(), configFiles(cfg), diags)
}
