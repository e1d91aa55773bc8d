package sql

import (
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/toolhost/toolhost/adapters"
)

// mysqlDialect is MySQL and MariaDB through go-sql-driver/mysql: ?
// placeholders sent as server-side bind parameters (InterpolateParams
// stays off), times parsed, and START TRANSACTION READ ONLY for read-only
// tools. The statement timeout is the call's deadline: the driver then
// closes the connection.
type mysqlDialect struct{}

func init() { dialects["mysql"] = mysqlDialect{} }

func (mysqlDialect) lex() lexFlags {
	return lexFlags{style: questionMarks, hashComments: true, backslashEscapes: true, backticks: true}
}

// readTx: read-only calls run in a READ ONLY transaction.
func (mysqlDialect) readTx() bool { return true }

func (mysqlDialect) placeholderExample(int) string { return "?" }

func (mysqlDialect) open(src *adapters.Source, readOnly bool) (*sql.DB, error) {
	cfg, err := mysql.ParseDSN(src.DSN)
	if err != nil {
		return nil, err
	}
	cfg.ParseTime = true
	cfg.InterpolateParams = false
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

func (mysqlDialect) secrets(dsn string) []string {
	out := []string{dsn}
	if cfg, err := mysql.ParseDSN(dsn); err == nil && cfg.Passwd != "" {
		out = append(out, cfg.Passwd)
	}
	return out
}

// mysqlBinary are the column types whose bytes are not text.
var mysqlBinary = map[string]bool{"BLOB": true, "TINYBLOB": true, "MEDIUMBLOB": true, "LONGBLOB": true, "BINARY": true, "VARBINARY": true, "BIT": true, "GEOMETRY": true}

// value: without bind arguments the driver reads every value as text, so
// numbers are read by their column's type: integers and floats as JSON
// numbers with their digits, DECIMAL exactly, JSON as JSON, binary types
// as base64, the rest as text.
func (mysqlDialect) value(ct *sql.ColumnType, v any) (any, error) {
	name := strings.ToUpper(ct.DatabaseTypeName())
	b, isBytes := v.([]byte)
	if isBytes {
		s := string(b)
		switch {
		case name == "DECIMAL":
			return decimal(s), nil
		case strings.Contains(name, "INT") || name == "FLOAT" || name == "DOUBLE" || name == "YEAR":
			if json.Valid(b) {
				return json.Number(s), nil
			}
		}
	}
	return convertValue(v, !mysqlBinary[name], name == "JSON")
}
