package sql

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"testing"
)

// BenchmarkPointLookup is one row by its primary key, on SQLite and on
// PostgreSQL: through toolhost (Registry.CallTool: arguments checked, the
// read-only transaction, the row as JSON, the result shaped) and, as the
// floor, the same query with database/sql on the same driver and pool
// size (and on PostgreSQL in the same read-only transaction), 1 and 64
// calls at once.
func BenchmarkPointLookup(b *testing.B) {
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) // the calls' log lines
	for _, driver := range []string{"sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) { benchmarkPointLookup(b, driver) })
	}
}

// benchmarkPointLookup is BenchmarkPointLookup on one driver.
func benchmarkPointLookup(b *testing.B, driver string) {
	db := newDB(b, driver,
		"CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, price NUMERIC(10,2) NOT NULL)",
		"INSERT INTO items VALUES (1, 'Blue mug', 8.5), (2, 'Red mug', 8.5), (3, 'Tea towel', 4.25), (4, 'Desk lamp', 29.99), (5, 'Notebook', 3), (6, 'Pen', 1.2)")
	query := db.q("SELECT id, name, price FROM items WHERE id = {1}")
	reg := loadConfig(b, db.dir, db.source("db", "  max_open_conns = 10")+idTool("get", query, true))
	direct := db.open(b)
	if driver == "sqlite" {
		direct.Close()
		var err error
		if direct, err = sql.Open("sqlite", sqliteURI(db.dsn, true)); err != nil {
			b.Fatal(err)
		}
	}
	defer direct.Close()
	direct.SetMaxOpenConns(10)
	direct.SetMaxIdleConns(10)
	ctx := context.Background()
	lookups := map[string]func(i int) error{
		"toolhost": func(i int) error {
			res, err := reg.CallTool(ctx, "get", fmt.Appendf(nil, `{"id":%d}`, i%6+1))
			if err == nil && res.IsError {
				err = fmt.Errorf("%s", resultText(res))
			}
			return err
		},
		"database-sql": func(i int) error {
			var id int64
			var name, price string
			return direct.QueryRowContext(ctx, query, i%6+1).Scan(&id, &name, &price)
		},
		// The floor with the read-only transaction toolhost runs a
		// statement in on PostgreSQL (BEGIN READ ONLY, the query,
		// ROLLBACK: three round trips); SQLite's read-only file needs
		// none.
		"database-sql-tx": func(i int) error {
			tx, err := direct.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback() }()
			var id int64
			var name, price string
			return tx.QueryRowContext(ctx, query, i%6+1).Scan(&id, &name, &price)
		},
	}
	ways := []string{"database-sql", "database-sql-tx", "toolhost"}
	if driver == "sqlite" {
		ways = []string{"database-sql", "toolhost"}
	}
	for _, way := range ways {
		lookup := lookups[way]
		b.Run(way+"/1", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if err := lookup(i); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(way+"/64", func(b *testing.B) {
			b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.RunParallel(func(pb *testing.PB) {
				for i := 0; pb.Next(); i++ {
					if err := lookup(i); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
