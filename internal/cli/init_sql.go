package cli

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the "sqlite" driver, to create the starter's database
)

// starterSQLConfig is what init --sql writes: a SQLite source beside the
// config and three tools on it (list, search, add). It validates with no
// diagnostics and is formatted as toolhost fmt formats.
const starterSQLConfig = `# tools.hcl: tools on a SQLite database (notes.db, beside this file), served by
#
#   toolhost serve tools.hcl
#
# Check it, with its statements prepared on the database:
#   toolhost validate --online tools.hcl
# Try a tool without a client:  toolhost call tools.hcl search_notes text=milk

server {
  name = "my-notes"
}

# A source is a database the sql blocks share. Sources are read-only unless
# they say otherwise; for PostgreSQL write driver = "postgres" and
# dsn = env("DATABASE_URL").
source "notes" {
  driver    = "sqlite"
  dsn       = "notes.db"
  read_only = false
}

tool "list_notes" {
  description = "The latest notes, newest first."
  sql {
    source   = "notes"
    query    = "SELECT id, body, created FROM notes ORDER BY id DESC"
    max_rows = 20
  }
}

# Values reach the statement only as bind arguments: each ? takes the next
# value of args, and nothing in a value can change the statement.
tool "search_notes" {
  description = "Notes that contain the given text."
  param "text" {
    type       = string
    min_length = 1
  }
  sql {
    source = "notes"
    query  = "SELECT id, body, created FROM notes WHERE body LIKE '%' || ? || '%' ORDER BY id DESC"
    args   = [param.text]
  }
}

# A tool that writes says read_only = false; it is marked destructive, and
# the user is asked before it runs.
tool "add_note" {
  description = "Adds a note."
  param "body" {
    type       = string
    min_length = 1
    max_length = 2000
  }
  sql {
    source    = "notes"
    query     = "INSERT INTO notes (body) VALUES (?)"
    args      = [param.body]
    read_only = false
  }
}
`

// starterSQLScript makes the starter's database.
const starterSQLScript = `CREATE TABLE notes (
  id      INTEGER PRIMARY KEY,
  body    TEXT NOT NULL,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
INSERT INTO notes (body) VALUES ('Buy milk'), ('Call the plumber about the kitchen tap');
`

// writeSQLStarter writes init --sql's config at path and its database,
// notes.db, beside it; neither may exist (the error is then fs.ErrExist).
func writeSQLStarter(path string) error {
	dbPath := filepath.Join(filepath.Dir(path), "notes.db")
	if _, err := os.Stat(dbPath); err == nil {
		return &fs.PathError{Op: "create", Path: dbPath, Err: fs.ErrExist}
	}
	if err := writeFileExcl(path, starterSQLConfig); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", dbPath)
	if err == nil {
		_, err = db.Exec(starterSQLScript)
		err = errors.Join(err, db.Close())
	}
	if err != nil {
		_ = os.Remove(path)
		_ = os.Remove(dbPath)
		return fmt.Errorf("creating %s: %w", dbPath, err)
	}
	return nil
}
