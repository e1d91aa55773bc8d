// Package sql is the sql backend: a tool's statement run on a database
// that a top-level source block declares (SQLite through modernc.org/sqlite,
// PostgreSQL through pgx, MySQL and MariaDB through go-sql-driver/mysql,
// all pure Go).
//
// The statement is fixed text; the call's values reach it only as bind
// arguments (args = [param.id]), in the driver's own placeholders ($1 for
// postgres, ? for sqlite and mysql). A tool reads in a read-only
// transaction, on a pool opened read-only where the driver can (sqlite
// mode=ro and query_only; postgres default_transaction_read_only), unless
// its block says read_only = false, which its source must allow. Rows
// become JSON (rows.go, through internal/sqlvalue); pools are
// shared by source and kept across reloads (pool.go).
//
// Values become JSON as package sqlvalue converts them, by the column's
// type as the driver reports it: NULL is null; integers are JSON numbers
// up to 2^53 in magnitude and decimal strings beyond (most JSON readers,
// JavaScript's among them, would round them); an exact decimal (NUMERIC,
// DECIMAL) keeps the database's digits, a number while a double holds
// them and a string beyond, NaN and Infinity strings too; times are RFC
// 3339 strings (a DATE is YYYY-MM-DD); bytes (BLOB, BYTEA, VARBINARY) are
// base64 strings; JSON columns are JSON; PostgreSQL arrays are JSON
// arrays.
package sql
