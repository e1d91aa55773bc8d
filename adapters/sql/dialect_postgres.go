package sql

import (
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
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

// value: pgx's database/sql layer gives numeric, arrays and most other
// types as text; numeric becomes an exact JSON number, an array a JSON
// array of its elements, date a date without a time, json and jsonb
// JSON, bytea base64.
func (postgresDialect) value(ct *sql.ColumnType, v any) (any, error) {
	name := strings.ToUpper(ct.DatabaseTypeName())
	switch s, isText := v.(string); {
	case isText && name == "NUMERIC":
		return decimal(s), nil
	case isText && strings.HasPrefix(name, "_"):
		return pgArray(name, s)
	}
	if t, ok := v.(time.Time); ok && name == "DATE" {
		return t.Format(time.DateOnly), nil
	}
	return convertValue(v, false, name == "JSON" || name == "JSONB")
}

// pgTypes knows PostgreSQL's built-in types, to decode arrays' text.
var pgTypes = pgtype.NewMap()

// pgArray decodes an array column's text ({1,2,NULL}) into its elements,
// each converted as a column of its type would be (json.Marshal writes
// what is left: numerics exactly, times in RFC 3339, bytes as base64).
func pgArray(name, text string) (any, error) {
	typ, ok := pgTypes.TypeForName(strings.ToLower(name))
	if !ok {
		return text, nil // an array of a type pgx does not know: its text
	}
	var elems []any
	if err := pgTypes.Scan(typ.OID, pgtype.TextFormatCode, []byte(text), &elems); err != nil {
		return nil, err
	}
	return elems, nil
}
