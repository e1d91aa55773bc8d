package sqlvalue

import (
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// kind is what sqlvalue makes of a column's type.
type kind uint8

const (
	// kindAny is a column of no known type: a SQLite expression, or a
	// driver sqlvalue does not know; values are read by their Go type.
	kindAny kind = iota
	kindText
	kindInt    // at most 32 bits: always a JSON number
	kindBigint // 64 bits: a string beyond 2^53
	kindFloat32
	kindFloat64
	kindDecimal
	kindBool
	kindBytes
	kindJSON
	kindTimestampTZ // an instant: RFC 3339 in UTC
	kindTimestamp   // a wall-clock time: RFC 3339 without the offset
	kindDate
	kindTime
	kindInterval
	kindUUID
	kindArray // PostgreSQL's arrays, in its text form
	kindSet   // MySQL's SET, its members joined by commas
	kindBit   // MySQL's BIT, big-endian bytes
)

// postgresKind is the kind of a PostgreSQL type as pgx names it; an array
// type's name is its element's with a leading underscore.
func postgresKind(typ string) kind {
	switch typ {
	case "INT2", "INT4", "OID", "CID", "XID":
		return kindInt
	case "INT8":
		return kindBigint
	case "FLOAT4":
		return kindFloat32
	case "FLOAT8":
		return kindFloat64
	case "NUMERIC":
		return kindDecimal
	case "BOOL":
		return kindBool
	case "BYTEA":
		return kindBytes
	case "JSON", "JSONB":
		return kindJSON
	case "TIMESTAMPTZ":
		return kindTimestampTZ
	case "TIMESTAMP":
		return kindTimestamp
	case "DATE":
		return kindDate
	case "TIME":
		return kindTime
	case "INTERVAL":
		return kindInterval
	case "UUID":
		return kindUUID
	}
	if len(typ) > 1 && typ[0] == '_' {
		return kindArray
	}
	// Text, and the types pgx reads as their text: enums (which it names
	// by their number), inet, money, ranges, timetz and the rest.
	return kindText
}

// mysqlKind is the kind of a MySQL type as go-sql-driver names it.
func mysqlKind(typ string) kind {
	switch typ {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "YEAR",
		"UNSIGNED TINYINT", "UNSIGNED SMALLINT", "UNSIGNED MEDIUMINT", "UNSIGNED INT":
		return kindInt
	case "BIGINT", "UNSIGNED BIGINT":
		return kindBigint
	case "FLOAT":
		return kindFloat32
	case "DOUBLE":
		return kindFloat64
	case "DECIMAL":
		return kindDecimal
	case "BIT":
		return kindBit
	case "BINARY", "VARBINARY", "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "GEOMETRY", "VECTOR":
		return kindBytes
	case "JSON":
		return kindJSON
	case "TIMESTAMP":
		return kindTimestampTZ
	case "DATETIME":
		return kindTimestamp
	case "DATE":
		return kindDate
	case "TIME":
		return kindTime
	case "SET":
		return kindSet
	}
	return kindText
}

// sqliteKind is the kind of a SQLite column's declared type: a few names
// that modernc.org/sqlite or common use give a meaning, then SQLite's
// rules of type affinity.
func sqliteKind(typ string) kind {
	name, _, _ := strings.Cut(typ, "(")
	switch strings.TrimSpace(name) {
	case "":
		return kindAny
	case "BOOLEAN", "BOOL":
		return kindBool
	case "DATETIME", "TIMESTAMP":
		return kindTimestampTZ
	case "DATE":
		return kindDate
	case "TIME":
		return kindTime
	case "JSON", "JSONB":
		return kindJSON
	}
	switch {
	case strings.Contains(typ, "INT"):
		return kindBigint
	case strings.Contains(typ, "CHAR"), strings.Contains(typ, "CLOB"), strings.Contains(typ, "TEXT"):
		return kindText
	case strings.Contains(typ, "BLOB"):
		return kindBytes
	case strings.Contains(typ, "REAL"), strings.Contains(typ, "FLOA"), strings.Contains(typ, "DOUB"):
		return kindFloat64
	}
	return kindDecimal
}

// schemas are the JSON Schemas of the kinds' values other than null;
// kindAny's and kindJSON's allow any JSON value.
var schemas = [...]jsonschema.Schema{
	kindAny:         {},
	kindText:        {Type: "string"},
	kindInt:         {Type: "integer"},
	kindBigint:      {Types: []string{"integer", "string"}},
	kindFloat32:     {Types: []string{"number", "string"}},
	kindFloat64:     {Types: []string{"number", "string"}},
	kindDecimal:     {Types: []string{"number", "string"}},
	kindBool:        {Type: "boolean"},
	kindBytes:       {Type: "string", ContentEncoding: "base64"},
	kindJSON:        {},
	kindTimestampTZ: {Type: "string", Format: "date-time"},
	kindTimestamp:   {Type: "string", Description: "a date and wall-clock time without a time zone"},
	kindDate:        {Type: "string", Format: "date"},
	kindTime:        {Type: "string"},
	kindInterval:    {Type: "string", Description: "an ISO 8601 duration"},
	kindUUID:        {Type: "string", Format: "uuid"},
	kindArray:       {Type: "array"},
	kindSet:         {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	kindBit:         {Types: []string{"integer", "string"}},
}

// schema is a copy of the JSON Schema of the kind's values other than
// null.
func (k kind) schema() *jsonschema.Schema {
	s := schemas[k]
	s.Types = slices.Clone(s.Types)
	if s.Items != nil {
		items := *s.Items
		s.Items = &items
	}
	return &s
}
