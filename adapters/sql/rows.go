package sql

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// queryRows runs the statement and writes its rows as JSON: with
// single_row the first row as an object, else {"rows": [...]} with at most
// max_rows rows and max_output bytes, and "truncated": true and a "note"
// when rows were left out.
func (b *Backend) queryRows(ctx context.Context, q querier, args []any) ([]byte, error) {
	rows, err := q.QueryContext(ctx, b.query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	keys := columnKeys(cols)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out bytes.Buffer
	if !b.singleRow {
		out.WriteString(`{"rows":[`)
	}
	n, note := 0, ""
	for rows.Next() {
		if n == b.maxRows {
			note = fmt.Sprintf("only the first %d rows are shown (max_rows); narrow the query (a WHERE clause, LIMIT and OFFSET) to see others", n)
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row, err := b.rowJSON(cols, keys, vals)
		if err != nil {
			return nil, err
		}
		if out.Len()+len(row)+2 > b.maxOutput {
			note = fmt.Sprintf("only the first %d rows are shown: the next would take the result past %d bytes (max_output); narrow the query or select fewer columns", n, b.maxOutput)
			if n == 0 {
				return nil, fmt.Errorf("the first row alone is larger than %d bytes (max_output in the sql block); select fewer or shorter columns, or raise max_output", b.maxOutput)
			}
			break
		}
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(row)
		n++
		if b.singleRow {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if b.singleRow {
		if n == 0 {
			return nil, errors.New("the query matched no row")
		}
		return out.Bytes(), nil
	}
	out.WriteByte(']')
	if note != "" {
		noteJSON, _ := json.Marshal(note)
		out.WriteString(`,"truncated":true,"note":`)
		out.Write(noteJSON)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// rowJSON writes one row as a JSON object, its columns in order.
func (b *Backend) rowJSON(cols []*sql.ColumnType, keys [][]byte, vals []any) ([]byte, error) {
	var row bytes.Buffer
	row.WriteByte('{')
	for i, ct := range cols {
		v, err := b.d.value(ct, vals[i])
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", ct.Name(), err)
		}
		js, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", ct.Name(), err)
		}
		if i > 0 {
			row.WriteByte(',')
		}
		row.Write(keys[i])
		row.WriteByte(':')
		row.Write(js)
	}
	row.WriteByte('}')
	return row.Bytes(), nil
}

// columnKeys are the rows' JSON keys: the column names, a name that
// repeats (a join's two id columns) numbered from its second time (id_2).
func columnKeys(cols []*sql.ColumnType) [][]byte {
	seen := map[string]int{}
	keys := make([][]byte, len(cols))
	for i, ct := range cols {
		name := ct.Name()
		seen[name]++
		if k := seen[name]; k > 1 {
			name += "_" + strconv.Itoa(k)
		}
		keys[i], _ = json.Marshal(name)
	}
	return keys
}
