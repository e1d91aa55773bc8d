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
// TRANSACTION READ ONLY for read-only tools, whose connections are
// read-only for the whole session too (mysqlConnector): a DDL statement
// commits the transaction it runs in, and would otherwise run outside it.
// The statement timeout is the call's deadline, on which the driver closes
// the connection, and the server's own too, so that the server stops the
// statement rather than run it to its end for a client that left.
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
	cfg.MultiStatements = false // a tool's query is one statement
	sqlvalue.MySQLConfig(cfg)
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(mysqlConnector{Connector: conn, timeout: src.StatementTimeout, readOnly: readOnly}), nil
}

func (mysqlDialect) secrets(dsn string) []string {
	out := []string{dsn}
	if cfg, err := mysql.ParseDSN(dsn); err == nil && cfg.Passwd != "" {
		out = append(out, cfg.Passwd)
	}
	return out
}

// serverTimeoutMargin is how long after the call's deadline the server's
// own statement timeout comes: the call's comes first, with its message
// (a statement that MariaDB stops may still answer, as BENCHMARK() does
// with a row), and the server stops what the client left an instant
// later.
const serverTimeoutMargin = 100 * time.Millisecond

// mysqlConnector sets up each new connection: read-only for a read-only
// pool (SET SESSION TRANSACTION READ ONLY, which every transaction of the
// session then is, the one after a DDL's implicit commit among them), and
// the server's statement timeout, serverTimeoutMargin after the call's:
// MariaDB's max_statement_time (seconds,
// any statement), or, on MySQL, which lacks it, max_execution_time
// (milliseconds, SELECT only). A server that knows neither keeps only the
// client's deadline.
type mysqlConnector struct {
	driver.Connector
	timeout  time.Duration
	readOnly bool
}

// The server's errors that the dialect reads: MySQL's and MariaDB's
// "Unknown system variable", and the statement timeouts of MariaDB
// (max_statement_time) and MySQL (max_execution_time).
const (
	errUnknownVariable  = 1193
	errStatementTimeout = 1969
	errMaxExecutionTime = 3024
)

// timedOut reports whether err is the server's statement timeout.
func (mysqlDialect) timedOut(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == errStatementTimeout || me.Number == errMaxExecutionTime)
}

// Connect dials a connection and sets up its session.
func (c mysqlConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.setup(ctx, conn); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return conn, nil
}

// setup sets the session's access mode and statement timeout.
func (c mysqlConnector) setup(ctx context.Context, conn driver.Conn) error {
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		return fmt.Errorf("the mysql driver's connection cannot run statements")
	}
	if c.readOnly {
		if _, err := ex.ExecContext(ctx, "SET SESSION TRANSACTION READ ONLY", nil); err != nil {
			return err
		}
	}
	var err error
	timeout := c.timeout + serverTimeoutMargin
	for _, set := range []string{
		"SET SESSION max_statement_time = " + strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64),
		"SET SESSION max_execution_time = " + strconv.FormatInt(timeout.Milliseconds(), 10),
	} {
		if _, err = ex.ExecContext(ctx, set, nil); !unknownVariable(err) {
			return err
		}
	}
	return nil
}

// unknownVariable reports whether err is the server's refusal of a system
// variable it does not have.
func unknownVariable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == errUnknownVariable
}

func (mysqlDialect) unreachable() string {
	return "Check that the database server is running and reachable from here, and that the source's dsn has the right address, database name and credentials."
}
