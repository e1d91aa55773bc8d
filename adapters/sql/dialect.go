package sql

import (
	"database/sql"
	"fmt"

	"github.com/toolhost/toolhost/adapters"
)

// dialect is what differs between drivers; each lives in its own file
// (dialect_sqlite.go, dialect_postgres.go, dialect_mysql.go).
type dialect interface {
	// readTx reports whether a read-only call needs a read-only
	// transaction: not when the pool's connections cannot write at all.
	readTx() bool
	// lex says how statements are written: placeholders, quotes, comments.
	lex() lexFlags
	// placeholderExample is a placeholder as the driver writes it, for
	// messages: "$1" or "?".
	placeholderExample(n int) string
	// open opens a pool on the source, read-only or not. It does no I/O:
	// connections are made when a call needs one.
	open(src *adapters.Source, readOnly bool) (*sql.DB, error)
	// secrets are the parts of the source's dsn that a message must not
	// show (the dsn itself, its password).
	secrets(dsn string) []string
	// unreachable is what to check when a connection to the source
	// cannot be made, a full sentence for messages.
	unreachable() string
}

// dialects are the dialects by source driver.
var dialects = map[string]dialect{}

// unknownDriver is the error of a source whose driver has no dialect (the
// hcl package refuses such a source first).
func unknownDriver(name string) error {
	return fmt.Errorf("unknown driver %q", name)
}
