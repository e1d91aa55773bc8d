package sql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/sqlvalue"
)

// mysqlDialect is MySQL and MariaDB through go-sql-driver/mysql: ?
// placeholders sent as server-side bind parameters (InterpolateParams
// stays off), the session in UTC (sqlvalue.MySQLConfig), and START
// TRANSACTION READ ONLY for read-only tools. The statement timeout is the
// call's deadline, on which the driver closes the connection, and the
// server's own too (statementTimeoutConnector), so that the server stops
// the statement rather than run it to its end for a client that left.
type mysqlDialect struct{}

func init() {
	dialects["mysql"] = mysqlDialect{}
	// The driver's own log lines (a bad idle connection closed, a packet
	// out of order) go through slog like every other log, never raw to
	// stderr.
	_ = mysql.SetLogger(mysqlLogger{})
}

// mysqlLogger is go-sql-driver's logger as slog warnings.
type mysqlLogger struct{}

// Print logs the driver's line.
func (mysqlLogger) Print(v ...any) {
	slog.Warn("mysql driver: " + fmt.Sprint(v...))
}

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
	cfg.InterpolateParams = false
	sqlvalue.MySQLConfig(cfg)
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(statementTimeoutConnector{Connector: conn, timeout: src.StatementTimeout}), nil
}

func (mysqlDialect) secrets(dsn string) []string {
	out := []string{dsn}
	if cfg, err := mysql.ParseDSN(dsn); err == nil && cfg.Passwd != "" {
		out = append(out, cfg.Passwd)
	}
	return out
}

// statementTimeoutConnector sets the server's statement timeout on each
// new connection: MariaDB's max_statement_time (seconds, any statement),
// or, on MySQL, which lacks it, max_execution_time (milliseconds, SELECT
// only). A server that knows neither keeps only the client's deadline.
type statementTimeoutConnector struct {
	driver.Connector
	timeout time.Duration
}

// errUnknownVariable is MySQL's and MariaDB's "Unknown system variable".
const errUnknownVariable = 1193

// Connect dials a connection and sets its statement timeout.
func (c statementTimeoutConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil || c.timeout <= 0 {
		return conn, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		return conn, nil
	}
	for _, set := range []string{
		"SET SESSION max_statement_time = " + strconv.FormatFloat(c.timeout.Seconds(), 'f', -1, 64),
		"SET SESSION max_execution_time = " + strconv.FormatInt(c.timeout.Milliseconds(), 10),
	} {
		if _, err = ex.ExecContext(ctx, set, nil); !unknownVariable(err) {
			break
		}
	}
	if err != nil && !unknownVariable(err) {
		_ = conn.Close()
		return nil, err
	}
	return conn, nil
}

// unknownVariable reports whether err is the server's refusal of a system
// variable it does not have.
func unknownVariable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == errUnknownVariable
}
