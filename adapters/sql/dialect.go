package sql

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/toolhost/toolhost/adapters"
)

// dialect is what differs between drivers; each lives in its own file
// (dialect_sqlite.go, dialect_postgres.go, dialect_mysql.go).
type dialect interface {
	// readTx reports whether a read-only call needs a read-only
	// transaction: not when the pool's connections cannot write at all.
	readTx() bool
	// lex says how statements are written: placeholders, quotes, comments.
	lex() lexFlags
	// placeholderExample is a placeholder as the driver writes it, for
	// messages: "$1" or "?".
	placeholderExample(n int) string
	// open opens a pool on the source, read-only or not. It does no I/O:
	// connections are made when a call needs one.
	open(src *adapters.Source, readOnly bool) (*sql.DB, error)
	// secrets are the parts of the source's dsn that a message must not
	// show (the dsn itself, its password).
	secrets(dsn string) []string
	// value turns a column's value, as the driver scanned it, into what
	// encoding/json writes faithfully (see convertValue).
	value(ct *sql.ColumnType, v any) (any, error)
}

// dialects are the dialects by source driver.
var dialects = map[string]dialect{}

// convertValue is the conversion every dialect shares: NULL is null,
// integers and floats are numbers (an exact decimal, given as text, is a
// json.Number with its digits), times are RFC 3339 text, bytes are
// base64 text unless text says they are characters, and a JSON column's
// value is JSON.
func convertValue(v any, text, isJSON bool) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []byte:
		if isJSON {
			return jsonValue(x)
		}
		if text {
			return string(x), nil
		}
		return base64.StdEncoding.EncodeToString(x), nil
	case string:
		if isJSON {
			return jsonValue([]byte(x))
		}
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		}
		return x, nil
	case float32:
		return convertValue(float64(x), text, isJSON)
	case time.Time:
		return x.Format(time.RFC3339Nano), nil
	}
	return v, nil
}

// jsonValue is a JSON column's value as JSON; a value that is not valid
// JSON (a sqlite TEXT column declared JSON may hold anything) stays text.
func jsonValue(b []byte) (any, error) {
	if !json.Valid(b) {
		return string(b), nil
	}
	return json.RawMessage(append([]byte(nil), b...)), nil
}

// decimal is an exact decimal given as text, as a JSON number with the
// same digits (encoding/json writes a json.Number as it is), or as text
// when it is not a finite number (NaN, Infinity).
func decimal(s string) any {
	if _, ok := new(big.Float).SetString(s); !ok || !json.Valid([]byte(s)) {
		return s
	}
	return json.Number(s)
}

// unknownDriver is the error of a source whose driver has no dialect (the
// hcl package refuses such a source first).
func unknownDriver(name string) error {
	return fmt.Errorf("unknown driver %q", name)
}
