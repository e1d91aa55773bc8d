package cli

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/audit"
	"github.com/toolhost/toolhost/internal/logfile"
)

// auditFlags are serve's flags of the audit log.
type auditFlags struct {
	path    string
	maxSize int64
	claims  string
}

// addAuditFlags declares --audit-log, --audit-log-max-size and
// --audit-claims on fs.
func addAuditFlags(fs *flag.FlagSet) *auditFlags {
	f := &auditFlags{}
	fs.StringVar(&f.path, "audit-log", "", "record every call of a tool not marked read-only (annotations { read_only_hint = true }) in this file, one JSON object a line: who (the token's subject; local on stdio; anonymous over HTTP without auth), the session, the tool, the arguments masked, when, the outcome and duration; appended to and rotated as --log-file is")
	fs.Int64Var(&f.maxSize, "audit-log-max-size", logfile.DefaultMaxSize, "with --audit-log: the size in bytes past which the audit log is renamed to FILE.1 (replacing an older one) and a new one begun")
	fs.StringVar(&f.claims, "audit-claims", "", "with --audit-log: the claims of the caller's token each record keeps besides its subject, separated by commas (for example email,groups)")
	return f
}

// open opens the audit log when --audit-log names one: the server option
// that records calls in it, and the function that writes what is queued
// and closes it. An .hcl path is refused (ExitUsage): it is a config's.
// A file that cannot be opened ends serve (ExitFailure):
// calls that must be audited are not served unaudited. stdio says whether
// serve serves stdio, whose calls are recorded as local's.
func (f *auditFlags) open(stdio bool, stderr io.Writer, logger *slog.Logger) (_ []host.ServerOption, closeAudit func(), code int) {
	if f.path == "" {
		return nil, func() {}, ExitOK
	}
	if strings.EqualFold(filepath.Ext(f.path), ".hcl") {
		// serve --audit-log tools.hcl, the audit log's own path left
		// out, would append records to the config it serves.
		fmt.Fprintf(stderr, "toolhost serve: --audit-log %s names an .hcl file, which toolhost reads as config; give the audit log a path of its own after the flag, such as --audit-log audit.jsonl\n", f.path)
		return nil, func() {}, ExitUsage
	}
	l, err := audit.Open(f.path, f.maxSize, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost serve: --audit-log: %s; give a file toolhost can create and append to, or leave the flag out to serve without an audit log\n", err)
		return nil, func() {}, ExitFailure
	}
	l.NoCaller = "anonymous"
	if stdio {
		l.NoCaller = "local"
	}
	for _, c := range strings.Split(f.claims, ",") {
		if c = strings.TrimSpace(c); c != "" {
			l.Claims = append(l.Claims, c)
		}
	}
	logger.Info("auditing the calls of tools not marked read-only", "path", l.Path(), "max_bytes", f.maxSize)
	return []host.ServerOption{host.AuditLog(l)}, func() { _ = l.Close() }, ExitOK
}
