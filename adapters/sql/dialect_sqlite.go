package sql

import (
	"database/sql"
	"net/url"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go

	"github.com/toolhost/toolhost/adapters"
)

// sqliteDialect is SQLite through modernc.org/sqlite: ? placeholders, the
// file opened read-only (mode=ro, and PRAGMA query_only) for read-only
// tools, read-write but never created for the others.
type sqliteDialect struct{}

func init() { dialects["sqlite"] = sqliteDialect{} }

// sqliteBusyTimeout is how long, in milliseconds, a connection waits for
// another's lock on the file before the statement fails.
const sqliteBusyTimeout = "5000"

func (sqliteDialect) lex() lexFlags {
	return lexFlags{style: questionMarks, backticks: true}
}

// readTx: a read-only pool's file is opened read-only (mode=ro), which no
// statement can undo; a transaction would only add BEGIN and ROLLBACK.
func (sqliteDialect) readTx() bool { return false }

func (sqliteDialect) placeholderExample(int) string { return "?" }

func (sqliteDialect) open(src *adapters.Source, readOnly bool) (*sql.DB, error) {
	return sql.Open("sqlite", sqliteURI(src.DSN, readOnly))
}

// sqliteURI is the file: URI the driver opens for the dsn, a path with an
// optional query (or a file: URI as the config wrote it): mode=ro and
// query_only for a read-only pool, mode=rw (the file must exist: a
// misspelt path is not a new empty database) for the others.
func sqliteURI(dsn string, readOnly bool) string {
	path, query, _ := strings.Cut(dsn, "?")
	if !strings.HasPrefix(path, "file:") {
		p := filepath.ToSlash(path)
		if filepath.VolumeName(path) != "" {
			p = "/" + p // C:/x.db is file:///C:/x.db
		}
		path = (&url.URL{Scheme: "file", Path: p}).String()
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+sqliteBusyTimeout+")")
	if readOnly {
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("mode", "rw")
	}
	extra := q.Encode()
	if query != "" {
		extra = query + "&" + extra
	}
	return path + "?" + extra
}

func (sqliteDialect) secrets(dsn string) []string { return []string{dsn} }

func (sqliteDialect) unreachable() string {
	return "Check that the source's dsn names an existing database file that toolhost may read: toolhost never creates one, so a misspelt path is refused rather than made into an empty database."
}
