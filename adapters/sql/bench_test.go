package sql

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkPointLookup is one row by its primary key: through toolhost
// (Registry.CallTool: arguments checked, the read-only transaction, the
// row as JSON, the result shaped) and, as the floor, the same query with
// database/sql on the same driver and pool size, 1 and 64 calls at once.
func BenchmarkPointLookup(b *testing.B) {
	dir := newShop(b)
	path := filepath.Join(dir, "shop.db")
	reg := loadConfig(b, dir, `
source "shop" {
  driver = "sqlite"
  dsn    = "shop.db"
}
tool "get" {
  param "id" {
    type = number
  }
  sql {
    source     = "shop"
    query      = "SELECT id, name, price FROM items WHERE id = ?"
    args       = [param.id]
    single_row = true
  }
}
`)
	direct, err := sql.Open("sqlite", sqliteURI(path, true))
	if err != nil {
		b.Fatal(err)
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
			var name string
			var price float64
			return direct.QueryRowContext(ctx, "SELECT id, name, price FROM items WHERE id = ?", i%6+1).Scan(&id, &name, &price)
		},
	}
	for _, way := range []string{"database-sql", "toolhost"} {
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
