package sql

import (
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/toolhost/toolhost/adapters"
)

// postgresDialect is PostgreSQL through pgx: $n placeholders,
// statement_timeout set on every connection, and a read-only pool's
// connections read-only by default (default_transaction_read_only) besides
// its BEGIN READ ONLY.
type postgresDialect struct{}

func init() { dialects["postgres"] = postgresDialect{} }

func (postgresDialect) lex() lexFlags {
	return lexFlags{style: dollarNumbers, dollarQuotes: true}
}

// readTx: read-only calls run in a READ ONLY transaction.
func (postgresDialect) readTx() bool { return true }

func (postgresDialect) placeholderExample(n int) string { return "$" + strconv.Itoa(n) }

func (postgresDialect) open(src *adapters.Source, readOnly bool) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(src.DSN)
	if err != nil {
		return nil, err
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["statement_timeout"] = strconv.FormatInt(src.StatementTimeout.Milliseconds(), 10)
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	return stdlib.OpenDB(*cfg), nil
}

func (postgresDialect) secrets(dsn string) []string {
	out := []string{dsn}
	if cfg, err := pgx.ParseConfig(dsn); err == nil && cfg.Password != "" {
		out = append(out, cfg.Password)
	}
	return out
}

// bind sends a number with a fraction as its decimal text: pgx would
// truncate a float64 bound to an integer parameter (1.5 would match id 1),
// where PostgreSQL refuses the text "1.5" for an integer and reads it
// exactly for numeric and float8.
func (postgresDialect) bind(v any) any {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return v
}

// timedOut reports whether err is the server's statement_timeout
// (query_canceled, which a cancel request gives too, with another
// message).
func (postgresDialect) timedOut(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "57014" && strings.Contains(pe.Message, "statement timeout")
}

func (postgresDialect) unreachable() string {
	return "Check that the database server is running and reachable from here, and that the source's dsn has the right address, database name and credentials."
}
