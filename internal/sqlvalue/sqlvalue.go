// Package sqlvalue turns the values that database/sql gives for a column
// (scanned into an *any) into JSON, and says which JSON Schema they have,
// for the drivers of the sql backend: pgx (PostgreSQL), go-sql-driver
// (MySQL, MariaDB) and modernc.org/sqlite. A column's kind comes from its
// driver and the type name the driver reports (ColumnType's
// DatabaseTypeName); the value's own Go type decides the rest, so that
// SQLite, whose columns may hold a value of any type, is read faithfully.
//
// The conversions, which never fail (a value that does not read as its
// column's type comes out as a string of its text):
//
//   - NULL is null; booleans are true and false (SQLite's BOOLEAN columns
//     too, whose 0 and 1 become false and true; MySQL's BOOL is a TINYINT
//     its driver cannot tell from others, and stays 0 and 1).
//   - Integers are JSON numbers while a double holds them exactly (up to
//     2^53 in magnitude) and decimal strings beyond, since most JSON readers
//     (JavaScript's among them) would silently round them: a 64-bit column's
//     schema is {"type": ["integer", "string"]}. MySQL's BIT is an integer.
//   - NUMERIC and DECIMAL keep the database's digits: a JSON number of them
//     while it has at most 15 significant digits (which a double reads back
//     the same), else a string of them; NaN and ±Infinity are the strings
//     "NaN", "Infinity" and "-Infinity", as they are for floats, which are
//     otherwise the shortest number that reads back the same (float4 and
//     MySQL's FLOAT at single precision).
//   - Text is a string; bytes (bytea, BLOB, BINARY) are standard base64.
//   - JSON and JSONB columns are the JSON itself (a string when it is not
//     valid JSON: MariaDB's JSON is a LONGTEXT, reported as TEXT, and
//     comes out as a string).
//   - Timestamps with a zone (PostgreSQL's timestamptz, MySQL's TIMESTAMP
//     read in UTC as MySQLConfig sets it, SQLite's DATETIME and TIMESTAMP,
//     which SQLite's date functions keep in UTC) are RFC 3339 in UTC:
//     "2024-01-02T03:04:05.5Z". Timestamps without one (timestamp, MySQL's
//     DATETIME) are the same wall-clock time without an offset:
//     "2024-01-02T03:04:05.5". Dates are "2024-01-02"; times of day are the
//     database's text ("13:14:15.5"; MySQL's TIME may be "-838:59:59");
//     PostgreSQL's infinity and -infinity stay strings.
//   - PostgreSQL's intervals are ISO 8601 durations as PostgreSQL's
//     iso_8601 style writes them: "P1Y2M3DT4H5M6.5S".
//   - UUIDs are strings; PostgreSQL's arrays are JSON arrays (nested for
//     several dimensions) of their elements, each converted as a column of
//     the element's type would be; MySQL's SET is an array of its members.
//   - Everything else (enums, inet, money, ranges, geometry as text) is the
//     database's text: an enum is its label.
package sqlvalue

import (
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The drivers, as the driver attribute of a source block names them.
const (
	Postgres = "postgres"
	MySQL    = "mysql"
	SQLite   = "sqlite"
)

// Column is one column of a result: its name, the type its driver reports,
// and what sqlvalue makes of that type.
type Column struct {
	// Name is the column's name in the result, and its key in a row's
	// object (see Names for duplicate names).
	Name string
	// DatabaseType is the type name the driver reports, upper case, such
	// as "INT8", "_TEXT", "DECIMAL" or "VARCHAR(5)"; empty for a SQLite
	// expression.
	DatabaseType string
	kind         kind
	elem         kind
}

// NewColumn describes a column named name of type databaseType (as
// sql.ColumnType's DatabaseTypeName gives it) read with driver (Postgres,
// MySQL or SQLite; another name reads every value by its Go type alone).
func NewColumn(driver, name, databaseType string) Column {
	typ := strings.ToUpper(databaseType)
	c := Column{Name: name, DatabaseType: typ}
	switch driver {
	case Postgres:
		c.kind = postgresKind(typ)
		if c.kind == kindArray {
			c.elem = postgresKind(typ[1:])
		}
	case MySQL:
		c.kind = mysqlKind(typ)
	case SQLite:
		c.kind = sqliteKind(typ)
	}
	return c
}

// Columns describes the columns of a result, as rows.ColumnTypes gives
// them. Names that repeat (SELECT a.id, b.id) are made unique, since a
// row is a JSON object: the second "id" is "id_2", the third "id_3" (a
// name already taken gets the next number).
func Columns(driver string, types []*sql.ColumnType) []Column {
	cols := make([]Column, len(types))
	names := make([]string, len(types))
	for i, ct := range types {
		names[i] = ct.Name()
	}
	for i, name := range Names(names) {
		cols[i] = NewColumn(driver, name, types[i].DatabaseTypeName())
	}
	return cols
}

// Names returns names with each repeated one made unique by a suffix: the
// second "id" is "id_2", the third "id_3", skipping a name already taken.
func Names(names []string) []string {
	out := make([]string, len(names))
	taken := make(map[string]bool, len(names))
	for _, n := range names {
		taken[n] = true
	}
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		name := n
		for k := 2; seen[name]; k++ {
			if cand := n + "_" + strconv.Itoa(k); !taken[cand] {
				name = cand
			}
		}
		seen[name], taken[name] = true, true
		out[i] = name
	}
	return out
}

// ToJSON returns v, a value of a column of type databaseType read with
// driver, as JSON. It is NewColumn(driver, "", databaseType).JSON(v).
func ToJSON(driver, databaseType string, v any) json.RawMessage {
	return NewColumn(driver, "", databaseType).JSON(v)
}

// JSON returns v, a value of the column that rows.Scan put into an *any,
// as JSON.
func (c Column) JSON(v any) json.RawMessage {
	return c.AppendJSON(nil, v)
}

// AppendJSON appends v, a value of the column that rows.Scan put into an
// *any, as JSON to dst.
func (c Column) AppendJSON(dst []byte, v any) []byte {
	return appendValue(dst, c.kind, c.elem, v)
}

// Schema is the JSON Schema of the column's values (null among them:
// database/sql cannot say which columns are never NULL for every driver).
func (c Column) Schema() *jsonschema.Schema {
	s := withTypes(c.kind.schema(), "null")
	if c.kind == kindArray {
		// An element may be null, or an array of a further dimension.
		s.Items = withTypes(c.elem.schema(), "null", "array")
	}
	return s
}

// withTypes adds types to the types that s allows, unless s allows any.
func withTypes(s *jsonschema.Schema, types ...string) *jsonschema.Schema {
	if s.Type != "" {
		s.Types, s.Type = []string{s.Type}, ""
	}
	if len(s.Types) > 0 {
		s.Types = append(s.Types, types...)
	}
	return s
}

// RowSchema is the JSON Schema of a row of cols: an object with a property
// per column, each always present.
func RowSchema(cols []Column) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: make(map[string]*jsonschema.Schema, len(cols))}
	for _, c := range cols {
		s.Properties[c.Name] = c.Schema()
		s.Required = append(s.Required, c.Name)
		s.PropertyOrder = append(s.PropertyOrder, c.Name)
	}
	return s
}

// Scanner reads the rows of one result as JSON objects.
type Scanner struct {
	cols []Column
	vals []any
	ptrs []any
}

// NewScanner describes the columns of rows, read with driver.
func NewScanner(driver string, rows *sql.Rows) (*Scanner, error) {
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	s := &Scanner{cols: Columns(driver, types), vals: make([]any, len(types)), ptrs: make([]any, len(types))}
	for i := range s.vals {
		s.ptrs[i] = &s.vals[i]
	}
	return s, nil
}

// Columns are the result's columns.
func (s *Scanner) Columns() []Column { return s.cols }

// AppendRow scans the current row of rows (after rows.Next) and appends
// it to dst as a JSON object whose keys are the column names, in the
// columns' order.
func (s *Scanner) AppendRow(dst []byte, rows *sql.Rows) ([]byte, error) {
	if err := rows.Scan(s.ptrs...); err != nil {
		return dst, err
	}
	dst = append(dst, '{')
	for i, c := range s.cols {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, c.Name)
		dst = append(dst, ':')
		dst = c.AppendJSON(dst, s.vals[i])
		s.vals[i] = nil
	}
	return append(dst, '}'), nil
}
