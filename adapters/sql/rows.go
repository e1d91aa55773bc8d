package sql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/internal/sqlvalue"
)

// queryRows runs the statement and writes its rows as JSON (each row an
// object converted by sqlvalue, its keys the column names): with
// single_row the first row as an object, else {"rows": [...]} with at most
// max_rows rows and max_output bytes, and "truncated": true and a "note"
// when rows were left out.
func (b *Backend) queryRows(ctx context.Context, q querier, args []any) ([]byte, error) {
	rows, err := q.QueryContext(ctx, b.query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	sc, err := sqlvalue.NewScanner(b.src.Driver, rows)
	if err != nil {
		return nil, err
	}
	var row []byte
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
		row, err = sc.AppendRow(row[:0], rows)
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
