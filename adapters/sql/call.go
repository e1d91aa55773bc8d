package sql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/redact"
)

// Backend is the sql backend: one statement, run on a source's shared pool
// in a transaction (read-only unless the block says read_only = false),
// its values bound as arguments, its rows returned as JSON.
type Backend struct {
	tool  string
	src   *adapters.Source
	d     dialect
	pool  *pool
	query string
	// args are the expressions of the bind arguments, in placeholder order.
	args                []hcl.Expression
	maxRows, maxOutput  int
	singleRow, readOnly bool
	// sensitive are the parameters whose values are redacted from errors.
	sensitive []string
	declRange hcl.Range
	closeOnce sync.Once
}

// querier is where a statement runs: a transaction, or a connection of a
// pool that cannot write (dialect.readTx).
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Call runs the statement once.
func (b *Backend) Call(ctx context.Context, in *adapters.Input) (*adapters.Output, error) {
	args, err := b.bindArgs(in.Eval)
	if err != nil {
		return nil, err
	}
	secrets := func() []string { return b.secrets(in.Eval) }
	db, err := b.pool.get()
	if err != nil {
		return nil, b.fail("the source cannot be opened", err, secrets())
	}
	ctx, cancel := context.WithTimeout(ctx, b.src.StatementTimeout)
	defer cancel()
	if b.readOnly && !b.d.readTx() {
		conn, err := db.Conn(ctx)
		if err != nil {
			return nil, b.failCtx(ctx, "the database cannot be reached", err, secrets())
		}
		defer conn.Close()
		body, err := b.queryRows(ctx, conn, args)
		if err != nil {
			return nil, b.failCtx(ctx, "the statement failed", err, secrets())
		}
		return &adapters.Output{Body: body, MIMEType: "application/json", Secrets: secrets}, nil
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: b.readOnly})
	if err != nil {
		return nil, b.failCtx(ctx, "the database cannot be reached", err, secrets())
	}
	defer func() { _ = tx.Rollback() }()
	var body []byte
	if !b.readOnly && !returnsRows(b.query) {
		body, err = b.exec(ctx, tx, args)
	} else {
		body, err = b.queryRows(ctx, tx, args)
	}
	if err != nil {
		return nil, b.failCtx(ctx, "the statement failed", err, secrets())
	}
	if !b.readOnly {
		if err := tx.Commit(); err != nil {
			return nil, b.failCtx(ctx, "the transaction could not be committed", err, secrets())
		}
	}
	return &adapters.Output{Body: body, MIMEType: "application/json", Secrets: secrets}, nil
}

// exec runs a statement that writes and returns no rows: its answer is
// how many rows it changed.
func (b *Backend) exec(ctx context.Context, tx *sql.Tx, args []any) ([]byte, error) {
	res, err := tx.ExecContext(ctx, b.query, args...)
	if err != nil {
		return nil, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return []byte(`{}`), nil
	}
	return fmt.Appendf(nil, `{"rows_affected":%d}`, n), nil
}

// returnsRows reports whether a writing statement answers with rows: it
// has a RETURNING clause (postgres, sqlite, mariadb).
func returnsRows(q string) bool {
	return strings.Contains(strings.ToUpper(q), "RETURNING")
}

// bindArgs evaluates the args for this call, each as a value the driver
// binds: a string, an int64 (a whole number that fits) or a float64 (one
// that is exactly a float64; other numbers go as their exact decimal
// text), a bool, NULL, or, for a list or an object, its JSON text.
func (b *Backend) bindArgs(eval *hcl.EvalContext) ([]any, error) {
	out := make([]any, len(b.args))
	for i, e := range b.args {
		v, diags := e.Value(eval)
		if diags.HasErrors() {
			return nil, fmt.Errorf("argument %d of the sql block: %s", i+1, adapters.EvalMessage(diags))
		}
		v, _ = v.UnmarkDeep()
		a, err := bindValue(v)
		if err != nil {
			return nil, fmt.Errorf("argument %d of the sql block: %s", i+1, err)
		}
		if bd, ok := b.d.(binder); ok {
			a = bd.bind(a)
		}
		out[i] = a
	}
	return out, nil
}

// binder is a dialect that changes a bind argument's Go value for its
// driver.
type binder interface {
	bind(v any) any
}

// bindValue is one bind argument's Go value.
func bindValue(v cty.Value) (any, error) {
	switch {
	case v.IsNull():
		return nil, nil
	case !v.IsWhollyKnown():
		return nil, errors.New("the value is not known")
	case v.Type() == cty.String:
		return v.AsString(), nil
	case v.Type() == cty.Bool:
		return v.True(), nil
	case v.Type() == cty.Number:
		f := v.AsBigFloat()
		if n, acc := f.Int64(); f.IsInt() && acc == big.Exact {
			return n, nil
		}
		if x, acc := f.Float64(); acc == big.Exact {
			return x, nil
		}
		return f.Text('f', -1), nil
	}
	js, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return nil, err
	}
	return string(js), nil
}

// secrets are what no message of a call may show: the source's dsn and
// password, and the values of sensitive parameters.
func (b *Backend) secrets(eval *hcl.EvalContext) []string {
	return append(b.d.secrets(b.src.DSN), adapters.SensitiveParamValues(eval, b.sensitive)...)
}

// timeouter is a dialect whose server stops a statement at the source's
// statement_timeout itself, which may come just before the call's own
// deadline: timedOut recognizes the server's error.
type timeouter interface {
	timedOut(err error) bool
}

// failCtx is fail, or the statement timeout's message when the call's
// deadline, or the server's own statement timeout, ended it.
func (b *Backend) failCtx(ctx context.Context, what string, err error, secrets []string) error {
	to, _ := b.d.(timeouter)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || (to != nil && to.timedOut(err)) {
		return fmt.Errorf("tool %s: the statement ran past the statement_timeout of source %q (%s) and was stopped; narrow the query, or raise statement_timeout in the source block", b.tool, b.src.Name, b.src.StatementTimeout)
	}
	return b.fail(what, err, secrets)
}

// fail is a call's error: the tool, the source and the database's own
// message, with no secret in it.
func (b *Backend) fail(what string, err error, secrets []string) error {
	msg := redact.Redact(err.Error(), secrets)
	hint := ""
	switch {
	case what == "the database cannot be reached":
		hint = ". " + b.d.unreachable()
	case b.readOnly && looksLikeReadOnlyRefusal(msg):
		hint = "; the tool is read-only (its sql block may say read_only = false if it must write, and its source too)"
	}
	return fmt.Errorf("tool %s: %s (source %q, %s): %s%s", b.tool, what, b.src.Name, b.src.Driver, msg, hint)
}

// looksLikeReadOnlyRefusal reports whether a database's message is its
// refusal to write in a read-only transaction or database.
func looksLikeReadOnlyRefusal(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "read-only") || strings.Contains(m, "readonly") || strings.Contains(m, "read only")
}

// Close lets go of the source's pool: the last backend to hold it closes
// it, once the calls running on it are done.
func (b *Backend) Close() error {
	b.closeOnce.Do(b.pool.release)
	return nil
}
