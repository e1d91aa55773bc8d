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
// become JSON (rows.go) converted per driver (dialect_*.go); pools are
// shared by source and kept across reloads (pool.go).
//
// Values become JSON faithfully: NULL is null; integers are JSON numbers
// with all their digits (a 64-bit integer past 2^53 too); an exact decimal
// (NUMERIC, DECIMAL) is a JSON number written with the database's own
// digits, never through a float64, and NaN or Infinity are strings; times
// are RFC 3339 strings (a DATE is YYYY-MM-DD); bytes (BLOB, BYTEA,
// VARBINARY) are base64 strings; JSON columns are JSON; PostgreSQL arrays
// are JSON arrays. A client that reads numbers as float64 may round the
// largest, as it would any JSON number.
package sql
