package adapters

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Source is a top-level source block: a database connection that the tools
// of a config's sql blocks share, found by its name (CompileContext.Sources).
type Source struct {
	// Name is the block's label.
	Name string
	// Driver is "sqlite", "postgres" or "mysql".
	Driver string
	// DSN is the connection string: for sqlite, the database file's path,
	// made absolute against the directory of the config file. It holds
	// credentials: it is never logged nor shown in a message.
	DSN string
	// MaxOpenConns caps the connections open at once.
	MaxOpenConns int
	// StatementTimeout caps how long one statement runs.
	StatementTimeout time.Duration
	// ReadOnly is true unless the block says read_only = false: the tools
	// of a read-only source only read.
	ReadOnly bool
	// DeclRange is the block's header, for messages; DSNRange is its dsn
	// argument's value.
	DeclRange, DSNRange hcl.Range
}

// Writer is a Backend whose calls may change what they reach (a sql
// block with read_only = false). A tool whose backend writes gets
// destructiveHint and a confirm question unless it sets its own.
type Writer interface {
	Writes() bool
}

// OnlineChecker is a Backend that can check its block against the live
// system it reaches (a sql block prepares its statement on the database),
// for toolhost validate --online. CheckOnline returns the problems it
// found as diagnostics with the block's ranges; it is bounded by ctx.
type OnlineChecker interface {
	CheckOnline(ctx context.Context) hcl.Diagnostics
}

// StructuredOutput is a Backend whose output is always a JSON object that
// is the call's structuredContent when the tool has no result fields
// (sql rows); OutputSchema is that object's JSON Schema, known at load.
type StructuredOutput interface {
	OutputSchema() json.RawMessage
}
