package host

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/audit"
	ident "github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/redact"
)

// AuditLog gives NewServer the audit log (serve --audit-log): every call
// of a tool not marked read-only is recorded there, whichever front end
// made it.
func AuditLog(l *audit.Log) ServerOption {
	return func(o *serverOptions) { o.audit = l }
}

type (
	auditKey   struct{}
	sessionKey struct{}
)

// withAudit returns ctx carrying the audit log l, which the call's record
// goes to; ctx itself when l is nil.
func withAudit(ctx context.Context, l *audit.Log) context.Context {
	if l == nil {
		return ctx
	}
	return context.WithValue(ctx, auditKey{}, l)
}

// withSession returns ctx carrying the id of the session a request came
// in, for the call's log record; ctx itself when it has none.
func withSession(ctx context.Context, ss mcp.Session) context.Context {
	if ss == nil {
		return ctx
	}
	if id := ss.ID(); id != "" {
		return context.WithValue(ctx, sessionKey{}, id)
	}
	return ctx
}

// callerOf is a context of its own for a call that outlives its request
// (a task): it carries the request's caller and session, which the
// call's log and audit records name, and nothing else of ctx.
func callerOf(ctx context.Context) context.Context {
	run := ident.NewContext(context.Background(), ident.FromContext(ctx))
	if id, ok := ctx.Value(sessionKey{}).(string); ok {
		run = context.WithValue(run, sessionKey{}, id)
	}
	return run
}

// callOutcome is how a call ended, as its log and audit records say: ok,
// error, or cancelled (the call's context ended: the client cancelled,
// the server stopped).
func callOutcome(ctx context.Context, res *mcp.CallToolResult) string {
	switch {
	case !res.IsError:
		return "ok"
	case ctx.Err() != nil:
		return "cancelled"
	default:
		return "error"
	}
}

// logToolCall writes a tool call's record: at info, one line a call with
// its tool, outcome, duration, session and caller; a call that failed at
// warn with its error text; at debug, the arguments and the result too,
// all masked (see LogMask). A call of a tool not marked read-only also
// goes to the audit log, when there is one.
func logToolCall(ctx context.Context, t *thcl.Tool, args json.RawMessage, res *mcp.CallToolResult, took time.Duration) {
	logger := slog.Default()
	auditLog, _ := ctx.Value(auditKey{}).(*audit.Log)
	if auditLog != nil && t.Annotations != nil && t.Annotations.ReadOnlyHint {
		auditLog = nil
	}
	level := slog.LevelInfo
	if res.IsError {
		level = slog.LevelWarn
	}
	if !logger.Enabled(ctx, level) && auditLog == nil {
		return
	}
	debug := logger.Enabled(ctx, slog.LevelDebug)
	outcome := callOutcome(ctx, res)
	session, _ := ctx.Value(sessionKey{}).(string)
	if session != "" {
		session = sessionForLog(session)
	}
	caller := ident.FromContext(ctx)
	attrs := []slog.Attr{slog.String("tool", t.Name), slog.String("outcome", outcome), slog.Duration("duration", took)}
	if session != "" {
		attrs = append(attrs, slog.String("session", session))
	}
	if caller != nil && caller.Subject != "" {
		attrs = append(attrs, slog.String("subject", caller.Subject))
	}
	mask := LogMask(t)
	var shownArgs string
	if debug || auditLog != nil {
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		// First, so that the result is masked of what they hold.
		shownArgs = mask.Show(args)
	}
	if debug {
		attrs = append(attrs, slog.String("arguments", shownArgs))
	}
	var text string
	if res.IsError || debug {
		text = mask.Show([]byte(resultForLog(res)))
	}
	if res.IsError {
		logRecord(ctx, logger, level, "tool call failed", append(attrs, slog.String("error", text)))
	} else {
		if debug {
			attrs = append(attrs, slog.String("result", text))
		}
		logRecord(ctx, logger, level, "tool call", attrs)
	}
	if auditLog != nil {
		rec := audit.Record{Time: time.Now().Add(-took), Subject: auditLog.NoCaller, Session: session, Tool: t.Name,
			Arguments: auditArguments(shownArgs), Outcome: outcome, DurationMS: float64(took) / float64(time.Millisecond)}
		if caller != nil {
			rec.Subject = caller.Subject
			rec.Claims = chosenClaims(caller, auditLog.Claims)
		}
		if res.IsError {
			rec.Error = text
		}
		auditLog.Write(rec)
	}
}

// auditArguments is the masked arguments as an audit record holds them:
// as JSON when shown whole, else as the text shown (cut, with a note).
func auditArguments(shown string) any {
	if json.Valid([]byte(shown)) {
		return json.RawMessage(shown)
	}
	return shown
}

// chosenClaims are the claims of names that c's token has, masked as a
// log line masks values under a credential's name; nil when none.
func chosenClaims(c *ident.Caller, names []string) map[string]any {
	var out map[string]any
	for _, n := range names {
		v, ok := c.Claim(n)
		if !ok {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		if redact.SensitiveName(n) {
			v = "(sensitive value)"
		}
		out[n] = v
	}
	return out
}

// resultForLog is the text of a tool result: its text blocks, and a note
// of each other block.
func resultForLog(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("(image, %s, %d bytes)", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("(audio, %s, %d bytes)", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, "(resource link "+c.URI+")")
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				parts = append(parts, "(resource "+c.Resource.URI+")")
			}
		default:
			parts = append(parts, fmt.Sprintf("(%T)", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		return string(marshalForLog(res.StructuredContent))
	}
	return strings.Join(parts, "\n")
}

// logRecord logs one record of the call log as logger.LogAttrs would, but
// without the caller's program counter, which slog finds by walking the
// stack (runtime.Callers) for every record, and which toolhost's handlers
// never show.
func logRecord(ctx context.Context, logger *slog.Logger, level slog.Level, msg string, attrs []slog.Attr) {
	h := logger.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	r := slog.NewRecord(time.Now(), level, msg, 0)
	r.AddAttrs(attrs...)
	_ = h.Handle(ctx, r)
}
