package sql

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/redact"
)

// Writes reports whether the tool may write: its block says
// read_only = false.
func (b *Backend) Writes() bool { return !b.readOnly }

// CallsNetwork reports whether the database is reached over the network:
// postgres and mysql are, a sqlite file is not.
func (b *Backend) CallsNetwork() bool { return b.src.Driver != "sqlite" }

// SizeCapSetting names the settings that cap a call's rows.
func (b *Backend) SizeCapSetting() string { return "max_rows or max_output in its sql block" }

// OutputName names where a sql tool's output comes from.
func (b *Backend) OutputName() string { return "the statement's rows as JSON" }

// DescribeOutput says what a call answers.
func (b *Backend) DescribeOutput() string {
	switch {
	case b.singleRow:
		return "JSON: the first row, as an object"
	case !b.readOnly && !returnsRows(b.query):
		return "JSON: {\"rows_affected\": N}"
	}
	return fmt.Sprintf("JSON: {\"rows\": [...]}, at most %d rows", b.maxRows)
}

// OutputSchema is the JSON Schema of a call's structured result.
func (b *Backend) OutputSchema() json.RawMessage {
	switch {
	case b.singleRow:
		return json.RawMessage(`{"type":"object"}`)
	case !b.readOnly && !returnsRows(b.query):
		return json.RawMessage(`{"type":"object","properties":{"rows_affected":{"type":"integer"}}}`)
	}
	return json.RawMessage(`{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object"}},"truncated":{"type":"boolean"},"note":{"type":"string"}},"required":["rows"]}`)
}

// CheckOnline prepares the statement on the live database, which checks
// its syntax, the tables and columns it names and (postgres) its
// placeholders, without running it.
func (b *Backend) CheckOnline(ctx context.Context) hcl.Diagnostics {
	diag := func(summary, detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: b.declRange.Ptr()}}
	}
	db, err := b.pool.get()
	if err != nil {
		return diag("Source cannot be opened", fmt.Sprintf("Tool %s: the source %q cannot be opened: %s.", b.tool, b.src.Name, redact.Redact(err.Error(), b.d.secrets(b.src.DSN))))
	}
	ctx, cancel := context.WithTimeout(ctx, b.src.StatementTimeout)
	defer cancel()
	// The source's dsn is blamed when no connection can be made: the
	// query was not looked at.
	conn, err := db.Conn(ctx)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Database cannot be reached", Subject: b.src.DSNRange.Ptr(), Detail: fmt.Sprintf("Tool %s: the database of source %q (%s) cannot be reached, so the query was not checked: %s. %s", b.tool, b.src.Name, b.src.Driver, redact.Redact(err.Error(), b.d.secrets(b.src.DSN)), b.d.unreachable())}}
	}
	defer conn.Close()
	stmt, err := conn.PrepareContext(ctx, b.query)
	if err != nil {
		return diag("Statement refused by the database", fmt.Sprintf("Tool %s: the database of source %q (%s) refused to prepare the query: %s. Fix the query in the sql block.", b.tool, b.src.Name, b.src.Driver, redact.Redact(err.Error(), b.d.secrets(b.src.DSN))))
	}
	_ = stmt.Close()
	return nil
}

var (
	_ adapters.Backend          = (*Backend)(nil)
	_ adapters.Writer           = (*Backend)(nil)
	_ adapters.NetworkCaller    = (*Backend)(nil)
	_ adapters.SizeCapper       = (*Backend)(nil)
	_ adapters.OutputNamer      = (*Backend)(nil)
	_ adapters.OutputDescriber  = (*Backend)(nil)
	_ adapters.StructuredOutput = (*Backend)(nil)
	_ adapters.OnlineChecker    = (*Backend)(nil)
)
